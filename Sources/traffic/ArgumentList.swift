/// The arguments of a subcommand: `--name value` options, `--flag`s and positionals.
///
/// Every option must be consumed by the command; anything left over is reported as an
/// unknown option, so a typo never passes silently. The command takes only the options it
/// declares (`Subcommand.options`), the same definitions its help is made of.
struct ArgumentList {
  private var remaining: [String]
  /// What follows `--` (POSIX's end of options): positional, whatever it looks like
  /// (`traffic nearest -- -33.9,18.4`, a file named `--x`).
  private let afterOptions: [String]
  /// The options that take a value, and the flags, the command declares.
  private let valued: Set<String>
  private let flags: Set<String>

  init(_ arguments: [String], accepting options: [OptionDefinition]) {
    if let end = arguments.firstIndex(of: "--") {
      remaining = Array(arguments[..<end])
      afterOptions = Array(arguments[(end + 1)...])
    } else {
      remaining = arguments
      afterOptions = []
    }
    valued = Set(options.filter { $0.value != nil }.flatMap(\.names))
    flags = Set(options.filter { $0.value == nil }.flatMap(\.names))
  }

  /// Whether the command takes the option `--name VALUE`.
  func takes(_ name: String) -> Bool { valued.contains(name) }

  /// Removes and returns the value of `--name VALUE` (or `--name=VALUE`), if present.
  ///
  /// - Throws: `UsageError` when the option has no value or is given more than once.
  mutating func option(_ name: String) throws(UsageError) -> String? {
    assert(valued.contains(name), "\(name) is not among the command's options")
    guard let value = try takeOption(name) else { return nil }
    if try takeOption(name) != nil {
      throw UsageError("\(name) is given more than once; give it once")
    }
    return value
  }

  /// Removes and returns every value of an option that may be repeated
  /// (`--api-key A --api-key B`), in order.
  ///
  /// - Throws: `UsageError` when an occurrence has no value.
  mutating func repeatedOption(_ name: String) throws(UsageError) -> [String] {
    assert(valued.contains(name), "\(name) is not among the command's options")
    var values: [String] = []
    while let value = try takeOption(name) { values.append(value) }
    return values
  }

  private mutating func takeOption(_ name: String) throws(UsageError) -> String? {
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

  /// Removes `--name` (every time it is given) and tells whether it was there.
  mutating func flag(_ name: String) -> Bool {
    assert(flags.contains(name), "\(name) is not among the command's flags")
    let count = remaining.count
    remaining.removeAll { $0 == name }
    return remaining.count < count
  }

  /// The first `--name` among the arguments that the command does not declare, if any.
  /// Checked before a command runs, so that a typo fails before anything is opened or
  /// written.
  var firstUnknownOption: String? {
    var index = remaining.startIndex
    while index < remaining.endIndex {
      let argument = remaining[index]
      if valued.contains(argument) {
        index += 2  // the option and its value
        continue
      }
      if argument.hasPrefix("--"), !flags.contains(argument),
        !valued.contains(String(argument.prefix { $0 != "=" }))
      {
        return argument
      }
      index += 1
    }
    return nil
  }

  /// The positional arguments, read ahead without taking anything: what is neither a
  /// declared option, nor its value, nor a flag.
  var upcomingPositionals: [String] {
    var found: [String] = []
    var index = remaining.startIndex
    while index < remaining.endIndex {
      let argument = remaining[index]
      if valued.contains(argument) {
        index += 2
        continue
      }
      if !argument.hasPrefix("--") { found.append(argument) }
      index += 1
    }
    return found + afterOptions
  }

  /// Fails when positional arguments are given to a command that takes none. Checked
  /// before the store is opened, so that a stray word is named rather than a missing store.
  func requireNoPositionals(command: String) throws(UsageError) {
    let words = upcomingPositionals
    guard !words.isEmpty else { return }
    throw UsageError(
      "unexpected argument\(words.count == 1 ? "" : "s") "
        + words.map { "'\($0)'" }.joined(separator: " ") + "; see traffic help \(command)")
  }

  /// The positional arguments left once every option has been taken; fails on unknown
  /// options.
  mutating func positionals() throws(UsageError) -> [String] {
    if let unknown = remaining.first(where: { $0.hasPrefix("--") }) {
      throw UsageError("unknown option \(unknown)")
    }
    defer { remaining = [] }
    return remaining + afterOptions
  }
}
