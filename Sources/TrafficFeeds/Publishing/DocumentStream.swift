import Foundation

/// A published document written piece by piece as it is sent: a region's document of a
/// million incidents (gigabytes of text) is never held whole, only the piece being sent
/// and the selection it is read from.
///
/// Used from one thread at a time (a connection's sender, or one caller collecting it).
public final class DocumentStream: @unchecked Sendable {
  /// Writes the next piece (at least the given number of bytes unless it is the last), or
  /// returns `nil` once the document is complete.
  private let write: (Int) -> [UInt8]?
  private var isComplete = false

  /// A stream whose pieces `write` gives.
  ///
  /// - Parameter write: Called with the least number of bytes wanted; returns the next
  ///   piece, or `nil` after the last.
  init(_ write: @escaping (Int) -> [UInt8]?) {
    self.write = write
  }

  /// The next piece of the document: at least `minimumBytes` unless it is the last one;
  /// `nil` after the last.
  public func next(minimumBytes: Int = DocumentStream.pieceBytes) -> [UInt8]? {
    guard !isComplete else { return nil }
    guard let piece = write(minimumBytes) else {
      isComplete = true
      return nil
    }
    return piece
  }

  /// The rest of the document, whole.
  public func collect() -> Data {
    var document = Data()
    while let piece = next() { document.append(contentsOf: piece) }
    return document
  }

  /// The size of the pieces written by default.
  public static let pieceBytes = 65_536

  /// A stream that writes `header`, then each element of `items` (`count` of them) with
  /// `item`, then `footer`, into one writer whose text is taken piece by piece.
  static func pieces<Writer>(
    writer: Writer, count: Int,
    header: (inout Writer) -> Void,
    item: @escaping (Int, inout Writer) -> Void,
    footer: @escaping (inout Writer) -> [UInt8],
    written: @escaping (Writer) -> Int,
    take: @escaping (inout Writer) -> [UInt8]
  ) -> DocumentStream {
    var writer = writer
    header(&writer)
    var next = 0
    var ended = false
    return DocumentStream { minimumBytes in
      guard !ended else { return nil }
      while written(writer) < minimumBytes, next < count {
        item(next, &writer)
        next += 1
      }
      guard next == count else { return take(&writer) }
      ended = true
      return footer(&writer)
    }
  }
}
