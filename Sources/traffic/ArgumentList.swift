/// The arguments of a subcommand: `--name value` options, `--flag`s and positionals.
///
/// Every option must be consumed by the command; anything left over is reported as an
/// unknown option, so a typo never passes silently.
struct ArgumentList {
  private var remaining: [String]

  init(_ arguments: [String]) { remaining = arguments }

  /// Removes and returns the value of `--name VALUE` (or `--name=VALUE`), if present.
  mutating func option(_ name: String) throws(UsageError) -> String? {
    for (index, argument) in remaining.enumerated() {
      if argument == name {
        guard index + 1 < remaining.count else { throw UsageError("\(name) needs a value") }
        let value = remaining[index + 1]
        remaining.removeSubrange(index...(index + 1))
        return value
      }
      if argument.hasPrefix(name + "=") {
        remaining.remove(at: index)
        return String(argument.dropFirst(name.count + 1))
      }
    }
    return nil
  }

  /// Removes `--name` and tells whether it was there.
  mutating func flag(_ name: String) -> Bool {
    guard let index = remaining.firstIndex(of: name) else { return false }
    remaining.remove(at: index)
    return true
  }

  /// The positional arguments left once every option has been taken; fails on unknown
  /// options.
  mutating func positionals() throws(UsageError) -> [String] {
    if let unknown = remaining.first(where: { $0.hasPrefix("--") }) {
      throw UsageError("unknown option \(unknown)")
    }
    defer { remaining = [] }
    return remaining
  }
}
