import Foundation

/// The official validators the published DATEX II and WZDx documents must pass: `xmllint
/// --schema` with the DATEX II v3.7 schema vendored under
/// `Tests/TrafficFeedsTests/Fixtures/datex2-v3-schema/`, and Debian's python3-jsonschema with
/// the WZDx 4.2 and GeoJSON schemas of `Tests/Fixtures/schemas/`.
public enum PublishedDocumentValidator {
  /// libxml2's command-line tool, which validates against an XML Schema.
  public static let xmllint = DebianFile("/usr/bin/xmllint", package: "libxml2-utils")
  /// The system Python, with Debian's packages (not a pyenv's).
  public static let python = DebianFile("/usr/bin/python3", package: "python3")
  /// Debian's JSON Schema validator for Python.
  public static let jsonSchema = DebianFile(
    "/usr/lib/python3/dist-packages/jsonschema/__init__.py", package: "python3-jsonschema")

  /// The vendored DATEX II v3.7 schema's root (it imports every part).
  public static let datexSchema = Fixtures.repositoryRoot.appendingPathComponent(
    "Tests/TrafficFeedsTests/Fixtures/datex2-v3-schema/DATEXII_3_MessageContainer.xsd")
  /// The script that validates WZDx documents with the schemas resolved locally.
  public static let wzdxScript = Fixtures.repositoryRoot.appendingPathComponent(
    "Tests/TrafficFeedsTests/Fixtures/publishing/validate_wzdx.py")

  /// What a validator said: its exit status and output.
  public struct Verdict: Sendable {
    /// The exit status: 0 when every document is valid.
    public var status: Int32
    /// What it printed (standard output and error).
    public var output: String
  }

  static func run(_ program: String, _ arguments: [String]) throws -> Verdict {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return Verdict(
      status: process.terminationStatus, output: String(decoding: output, as: UTF8.self))
  }

  /// Validates DATEX II documents with `xmllint --schema` against the official v3 schema.
  public static func validateDATEXII(_ documents: [Data]) throws -> Verdict {
    try xmllint.require()
    return try withFiles(documents, named: "document-%d.xml") { paths in
      try run(xmllint.path, ["--noout", "--schema", datexSchema.path] + paths)
    }
  }

  /// Validates WZDx documents against the official WZDx 4.2 JSON Schemas (draft-07).
  public static func validateWZDx(_ documents: [Data]) throws -> Verdict {
    try python.require()
    try jsonSchema.require()
    return try withFiles(documents, named: "feed-%d.geojson") { paths in
      try run(
        python.path,
        [
          wzdxScript.path, Fixtures.sample("schemas/wzdx-4.2").path,
          Fixtures.sample("schemas/geojson").path,
        ] + paths)
    }
  }

  /// Writes the documents to files of a temporary folder (`name` with `%d` for the index),
  /// runs `body` on their paths and removes the folder.
  private static func withFiles(
    _ documents: [Data], named name: String, _ body: ([String]) throws -> Verdict
  ) throws -> Verdict {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
      "publishing-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    var paths: [String] = []
    for (index, document) in documents.enumerated() {
      let url = folder.appendingPathComponent(String(format: name, index))
      try document.write(to: url)
      paths.append(url.path)
    }
    return try body(paths)
  }
}
