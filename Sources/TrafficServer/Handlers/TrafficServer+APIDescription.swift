import Codec
import Foundation
import TrafficBuildInfo

extension TrafficServer {
  /// `GET /openapi.json`: the OpenAPI 3.1 description of this API (`Resources/openapi.json`),
  /// its `info.version` the build's version. No key needed, like `/healthz`.
  func openAPIDocument() -> HTTPResponse {
    guard let document = OpenAPIDocument.data else {
      return errorResponse(
        .internalError("the API description, openapi.json, is missing from the install"))
    }
    var response = HTTPResponse.json(document)
    response.headers.add("Cache-Control", "no-cache")
    return response
  }
}

/// The OpenAPI document, read once from the module's resources (or
/// `$TRAFFIC_RESOURCES/openapi.json`), with the version of the build filled in.
enum OpenAPIDocument {
  /// What stands for the version in the resource file, replaced when it is read.
  static let versionPlaceholder = "\"version\": \"@BUILD_VERSION@\""

  /// The document served, or `nil` when the file is missing.
  static let data: Data? = {
    let url = InstalledResources.locate("openapi.json") {
      Bundle.module.url(forResource: "openapi", withExtension: "json")
    }
    guard let url, let file = FileManager.default.contents(atPath: url.path) else { return nil }
    return filled(file, version: BuildInfo.version)
  }()

  /// The document with `version` (JSON-escaped) in place of the placeholder.
  static func filled(_ file: Data, version: String) -> Data {
    var writer = JSONWriter(capacity: 32)
    writer.string(version)
    let text = String(decoding: file, as: UTF8.self).replacingOccurrences(
      of: versionPlaceholder,
      with: "\"version\": " + String(decoding: writer.bytes, as: UTF8.self))
    return Data(text.utf8)
  }
}
