/// An array whose copies share their elements in chunks of 64: a copy retains one chunk
/// per 64 elements instead of every element, and a change copies only the chunk it falls
/// in. Snapshots that differ in a few positions out of millions share almost all of their
/// memory, and making or dropping one costs O(n / 64 + changes x 64), not O(n).
///
/// Reads are one more pointer hop than an `Array`'s. Not thread-safe for writes (a value
/// type like `Array`: each copy is changed by one thread); copies may be read anywhere.
package struct PersistentArray<Element> {
  /// Elements per chunk (a power of two).
  @usableFromInline static var width: Int { 64 }
  @usableFromInline static var shift: Int { 6 }

  /// The chunks; every one but the last is full.
  @usableFromInline var chunks: ContiguousArray<Chunk>
  /// The number of elements.
  @usableFromInline var storedCount: Int

  /// Up to `width` elements in the chunk object's own allocation; the header is the count.
  @usableFromInline
  final class Chunk: ManagedBuffer<Int, Element> {
    deinit {
      _ = withUnsafeMutablePointers { count, elements in
        elements.deinitialize(count: count.pointee)
      }
    }

    @usableFromInline
    static func make() -> Chunk {
      unsafeDowncast(
        Chunk.create(minimumCapacity: PersistentArray.width) { _ in 0 }, to: Chunk.self)
    }

    /// A chunk holding the same elements (a retain each).
    @usableFromInline
    func copy() -> Chunk {
      let copy = Chunk.make()
      withUnsafeMutablePointers { count, elements in
        copy.withUnsafeMutablePointers { copyCount, copyElements in
          copyElements.initialize(from: elements, count: count.pointee)
          copyCount.pointee = count.pointee
        }
      }
      return copy
    }
  }

  /// An empty array.
  package init() {
    chunks = []
    storedCount = 0
  }

  /// An array of the elements of `elements`, in order.
  package init(_ elements: some Sequence<Element>) {
    self.init()
    var iterator = elements.makeIterator()
    // Chunk by chunk, each filled in place.
    while true {
      let chunk = Chunk.make()
      let filled = chunk.withUnsafeMutablePointers { count, slots in
        var filled = 0
        while filled < Self.width, let element = iterator.next() {
          (slots + filled).initialize(to: element)
          filled += 1
        }
        count.pointee = filled
        return filled
      }
      guard filled > 0 else { return }
      chunks.append(chunk)
      storedCount += filled
      if filled < Self.width { return }
    }
  }

  /// Adds `element` at the end.
  ///
  /// - Complexity: O(1), plus a copy of the last chunk when it is shared.
  @inlinable
  package mutating func append(_ element: Element) {
    let offset = storedCount & (Self.width - 1)
    if offset == 0 {
      chunks.append(Chunk.make())
    } else if !isKnownUniquelyReferenced(&chunks[chunks.count - 1]) {
      chunks[chunks.count - 1] = chunks[chunks.count - 1].copy()
    }
    chunks[chunks.count - 1].withUnsafeMutablePointers { count, elements in
      (elements + offset).initialize(to: element)
      count.pointee = offset + 1
    }
    storedCount += 1
  }
}

extension PersistentArray: RandomAccessCollection, MutableCollection {
  @inlinable package var startIndex: Int { 0 }
  @inlinable package var endIndex: Int { storedCount }
  @inlinable package var count: Int { storedCount }

  @inlinable
  package subscript(position: Int) -> Element {
    get {
      precondition(position >= 0 && position < storedCount, "PersistentArray index out of range")
      return chunks[position &>> Self.shift].withUnsafeMutablePointerToElements {
        $0[position & (Self.width - 1)]
      }
    }
    set {
      precondition(position >= 0 && position < storedCount, "PersistentArray index out of range")
      let chunk = position &>> Self.shift
      if !isKnownUniquelyReferenced(&chunks[chunk]) {
        chunks[chunk] = chunks[chunk].copy()
      }
      chunks[chunk].withUnsafeMutablePointerToElements {
        $0[position & (Self.width - 1)] = newValue
      }
    }
  }
}

extension PersistentArray: ExpressibleByArrayLiteral {
  package init(arrayLiteral elements: Element...) {
    self.init(elements)
  }
}

// A chunk is changed only while one array holds it (`isKnownUniquelyReferenced`), so shared
// chunks are immutable and copies may be read from any thread.
extension PersistentArray: @unchecked Sendable where Element: Sendable {}
extension PersistentArray.Chunk: @unchecked Sendable where Element: Sendable {}
