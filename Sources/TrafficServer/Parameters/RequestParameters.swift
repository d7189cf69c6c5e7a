import Codec
import Foundation
import Traffic

/// Reads the parameters of a v7 query: the query string, plus for `POST` the members of a
/// JSON body object, which take the same names (`"in"` may be the JSON area object).
enum RequestParameters {
  /// The parameters of `request`.
  ///
  /// A name given both in the query string and in the body counts as given twice.
  /// - Throws: `TrafficQueryError.badRequest` for a body that is not a JSON object or holds a
  ///   member of an unusable kind, naming the member; `.invalidIn` for a bad `in` object.
  static func of(
    _ request: HTTPRequest, query: QueryParameters
  ) throws(TrafficQueryError) -> QueryParameters {
    guard request.method == "POST" else { return query }
    var parameters = query
    guard !request.body.isEmpty else {
      throw .badRequest(
        "the body must be a JSON object with the query parameters, e.g. {\"in\": ...}")
    }
    let root: JSONValue
    do {
      root = try JSONParser.parse(request.body)
    } catch {
      throw .badRequest("the body is not JSON: \(error)")
    }
    guard case .object(let members) = root else {
      throw .badRequest("the body must be a JSON object, not \(root.kindName)")
    }
    for (name, value) in members.sorted(by: { $0.key < $1.key }) {
      switch value {
      case .string(let text):
        parameters.append(name, text)
      case .number(let text):
        parameters.append(name, Self.integral(text))
      case .bool(let flag):
        parameters.append(name, flag ? "true" : "false")
      case .null:
        continue
      case .array(let items):
        var texts: [String] = []
        for item in items {
          switch item {
          case .string(let text): texts.append(text)
          case .number(let text): texts.append(Self.integral(text))
          default:
            throw .badRequest("body member \(name) must be a list of strings or numbers")
          }
        }
        parameters.append(name, texts.joined(separator: ","))
      case .object(let object):
        guard name == "in" else {
          throw .badRequest("body member \(name) must not be an object")
        }
        parameters.append(name, try V7AreaQuery.text(fromJSON: object))
      }
    }
    return parameters
  }

  /// A JSON number as query text: a whole number written with a fraction or an exponent
  /// (`100.0`, `1e2`) becomes its plain digits, since JSON does not tell them from `100`;
  /// other numbers stay as written.
  static func integral(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") }),
      let value = Double(text), value.rounded() == value, abs(value) < 9_007_199_254_740_992
    else { return text }
    return String(Int64(value))
  }
}
