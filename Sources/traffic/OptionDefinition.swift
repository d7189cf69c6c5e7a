/// One option a command takes: how it is spelled, the value it expects, and its help.
///
/// A command's `options` both parse its arguments (`ArgumentList` accepts only these) and
/// make its help (`Subcommand.help`), so the two cannot drift apart.
struct OptionDefinition: Sendable {
  /// The arguments that give the option: `--port`, or the forms of a flag with a value
  /// (`--demo`, `--demo=live`, `--demo=static`).
  let names: [String]
  /// What the value is called in help (`N`, `PATH`), `nil` for a flag.
  let value: String?
  /// How help writes the option, when not `name VALUE` (`--demo[=live|static]`).
  let display: String?
  /// What the option does; lines after the first continue it.
  let help: String

  /// An option that takes a value (`value` names it in help), or a flag (`value` `nil`).
  init(_ name: String, _ value: String? = nil, display: String? = nil, _ help: String) {
    names = [name]
    self.value = value
    self.display = display
    self.help = help
  }

  /// A flag: an option without a value.
  init(flag name: String, _ help: String) {
    self.init(name, nil, help)
  }

  /// A flag given in several forms (`--demo`, `--demo=live`), written as `display`.
  init(flags names: [String], display: String, _ help: String) {
    self.names = names
    value = nil
    self.display = display
    self.help = help
  }

  /// How help writes the option.
  var spelling: String { display ?? (names[0] + (value.map { " \($0)" } ?? "")) }

  /// The help lines of `options`: spelling, then the help aligned in a second column.
  static func helpText(_ options: [OptionDefinition]) -> String {
    let column = 24
    var lines: [String] = []
    for option in options {
      let spelling = "  " + option.spelling
      var text = option.help.split(separator: "\n", omittingEmptySubsequences: false)
        .map(String.init)
      let first = text.isEmpty ? "" : text.removeFirst()
      if spelling.count + 2 <= column {
        lines.append(spelling.padding(toLength: column, withPad: " ", startingAt: 0) + first)
      } else {
        lines.append(spelling)
        lines.append(String(repeating: " ", count: column) + first)
      }
      for line in text { lines.append(String(repeating: " ", count: column) + line) }
    }
    return lines.joined(separator: "\n")
  }
}
