/// A value in a parsed JSON document that is missing or wrong, with its JSON path
/// (`results[3].incidentDetails.startTime`).
package struct JSONFieldError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The JSON path of the value.
  package var path: String
  /// What is wrong with it.
  package var reason: String

  /// Creates an error.
  package init(path: String, reason: String) {
    self.path = path
    self.reason = reason
  }

  /// `"path: reason"`.
  package var description: String { "\(path): \(reason)" }
}

extension JSONValue {
  /// The member `key`, which must be present and not `null`.
  ///
  /// - Parameters:
  ///   - key: The member name.
  ///   - path: The path of this value, for the error.
  /// - Throws: `JSONFieldError` when the value is not an object or lacks the member.
  package func required(_ key: String, at path: String) throws(JSONFieldError) -> JSONValue {
    guard case .object(let members) = self else {
      throw JSONFieldError(path: path, reason: "expected an object, found \(kindName)")
    }
    guard let value = members[key], !value.isNull else {
      throw JSONFieldError(path: path, reason: "missing member \"\(key)\"")
    }
    return value
  }

  /// The string value, or an error naming `path`.
  package func requiredString(at path: String) throws(JSONFieldError) -> String {
    guard let text = string else {
      throw JSONFieldError(path: path, reason: "expected a string, found \(kindName)")
    }
    return text
  }

  /// The finite number value, or an error naming `path`.
  package func requiredDouble(at path: String) throws(JSONFieldError) -> Double {
    guard let value = double else {
      throw JSONFieldError(path: path, reason: "expected a finite number, found \(kindName)")
    }
    return value
  }

  /// The array value, or an error naming `path`.
  package func requiredArray(at path: String) throws(JSONFieldError) -> [JSONValue] {
    guard let elements = array else {
      throw JSONFieldError(path: path, reason: "expected an array, found \(kindName)")
    }
    return elements
  }

}
