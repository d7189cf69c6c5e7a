import Codec
import Foundation

/// The machine-readable summaries of the import commands (`--json`): one JSON object on
/// standard output, members sorted by name, printed also when some inputs failed (the
/// command still exits 64 and names them on standard error).
enum JSONSummary {
  /// The `--json` flag of the import commands.
  static let option = OptionDefinition(
    flag: "--json", "print one JSON object summing up the import, instead of the lines")

  static func number(_ value: Int) -> JSONValue { .number(String(value)) }

  static func number(_ value: Double, decimals: Int) -> JSONValue {
    .number(String(format: "%.\(decimals)f", value))
  }

  /// Prints `value` as one line of JSON.
  static func print(_ value: JSONValue, console: Console) {
    var writer = JSONWriter(capacity: 256)
    writer.value(value)
    console.print(String(decoding: writer.take(), as: UTF8.self))
  }

  /// The `failures` list: each failed input with its reason, split off the `PATH: ` prefix
  /// the line messages carry.
  static func failures(_ lines: [String], files: [String]) -> JSONValue {
    .array(
      lines.map { line in
        let file = files.first { line.hasPrefix($0 + ": ") }
        return .object([
          "file": file.map { .string($0) } ?? .null,
          "error": .string(file.map { String(line.dropFirst($0.count + 2)) } ?? line),
        ])
      })
  }
}
