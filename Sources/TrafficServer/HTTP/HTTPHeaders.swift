/// The header fields of a request or a response, in order, with names compared
/// case-insensitively (RFC 9110 §5.1).
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
  /// The fields as sent, in order; a name may repeat.
  public private(set) var fields: [(name: String, value: String)]

  /// Creates headers from fields.
  ///
  /// - Parameter fields: Name and value pairs, in order.
  public init(_ fields: [(name: String, value: String)] = []) {
    self.fields = fields
  }

  /// Creates headers from a literal such as `["Accept-Encoding": "gzip"]`.
  public init(dictionaryLiteral elements: (String, String)...) {
    fields = elements.map { (name: $0.0, value: $0.1) }
  }

  /// The value of the first field named `name` (any letter case), or `nil`.
  public subscript(name: String) -> String? {
    fields.first { $0.name.caseInsensitiveEquals(name) }?.value
  }

  /// Every value of the fields named `name`, in order.
  ///
  /// - Parameter name: A field name, any letter case.
  /// - Returns: The values; empty when there is no such field.
  public func values(of name: String) -> [String] {
    fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
  }

  /// Makes room for `count` fields in all.
  mutating func reserveCapacity(_ count: Int) {
    fields.reserveCapacity(count)
  }

  /// Appends a field.
  ///
  /// - Parameters:
  ///   - name: The field name.
  ///   - value: The field value.
  public mutating func add(_ name: String, _ value: String) {
    fields.append((name: name, value: value))
  }

  /// Replaces every field named `name` with one field of this value.
  ///
  /// - Parameters:
  ///   - name: The field name, any letter case.
  ///   - value: The new value.
  public mutating func set(_ name: String, _ value: String) {
    remove(name)
    fields.append((name: name, value: value))
  }

  /// Removes every field named `name`.
  ///
  /// - Parameter name: The field name, any letter case.
  public mutating func remove(_ name: String) {
    fields.removeAll { $0.name.caseInsensitiveEquals(name) }
  }

  /// Iterates over the fields in order.
  public func makeIterator() -> some IteratorProtocol<(name: String, value: String)> {
    fields.makeIterator()
  }

  /// Equal when the same fields appear in the same order (names compared exactly).
  public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
    lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
  }

  /// Hashes the fields in order.
  public func hash(into hasher: inout Hasher) {
    for field in fields {
      hasher.combine(field.name)
      hasher.combine(field.value)
    }
  }
}

extension String {
  /// ASCII case-insensitive equality, as header names and tokens compare.
  func caseInsensitiveEquals(_ other: String) -> Bool {
    let a = utf8, b = other.utf8
    guard a.count == b.count else { return false }
    return zip(a, b).allSatisfy { x, y in
      x == y || (x | 0x20 == y | 0x20 && (x | 0x20) >= 97 && (x | 0x20) <= 122)
    }
  }
}
