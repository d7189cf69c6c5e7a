import Codec
import Foundation
import Traffic
import TrafficBuildInfo

/// Exit statuses of the `traffic` command (API.md): 0 success, 64 bad usage or input.
enum CommandStatus: Int32 {
  case success = 0
  case failure = 1
  case usage = 64
}

/// A problem with what the user typed or gave us; printed and answered with status 64.
struct UsageError: Error, CustomStringConvertible {
  let description: String
  /// Several failures (one per file), each printed on a line of its own with the command's
  /// prefix.
  let failures: [String]
  init(_ description: String) {
    self.description = description
    failures = [description]
  }
  init(failures: [String]) {
    description = failures.joined(separator: "\n")
    self.failures = failures
  }
}

/// The `traffic` command: dispatches to its subcommands.
enum CommandLineTool {
  static var commands: [String: any Subcommand.Type] {
    [
      WithinCommand.name: WithinCommand.self, ImportCommand.name: ImportCommand.self,
      IncidentsCommand.name: IncidentsCommand.self, LookupCommand.name: LookupCommand.self,
      NearestCommand.name: NearestCommand.self, ServeCommand.name: ServeCommand.self,
      RenderCommand.name: RenderCommand.self, PickCommand.name: PickCommand.self,
      NetworkCommand.name: NetworkCommand.self, ProbesCommand.name: ProbesCommand.self,
      FlowCommand.name: FlowCommand.self, RouteCommand.name: RouteCommand.self,
      ExportCommand.name: ExportCommand.self, ProfilesCommand.name: ProfilesCommand.self,
      TableCommand.name: TableCommand.self,
    ]
  }

  static let overview = """
    traffic — the swift-traffic command line

    Usage: traffic COMMAND [OPTIONS]

    Commands:
    \(commands.values.sorted { $0.name < $1.name }.map { "  \($0.name.padding(toLength: 10, withPad: " ", startingAt: 0)) \($0.summary)" }.joined(separator: "\n"))
      help       Show help for a command: traffic help COMMAND (--man: the manual page)

    Options: --version prints the version and git revision; --help this text; -- ends a
    command's options (what follows is positional, such as a file named --x).

    Exit status: 0 success, 64 bad usage or bad input, 1 any other failure.
    """

  /// Runs one invocation and returns its exit status; output and messages go to `console`.
  ///
  /// Output that could not be written (a full disk, a closed standard output) fails the
  /// command with status 1 and one line saying why, once the command's work is done.
  static func run(_ arguments: [String], console: Console = .standard) async -> CommandStatus {
    let status = await dispatch(arguments, console: console)
    guard let failure = console.outputFailure() else { return status }
    console.error("traffic: cannot write standard output: \(failure)")
    return status == .success ? .failure : status
  }

  /// Runs one invocation: the version, help, or a command.
  private static func dispatch(_ arguments: [String], console: Console) async -> CommandStatus {
    guard let first = arguments.first else {
      console.error(overview)
      return .usage
    }
    if first == "--version" || first == "version" {
      console.print("traffic \(BuildInfo.version) (revision \(BuildInfo.revision))")
      return .success
    }
    if first == "help" || first == "--help" || first == "-h", arguments.contains("--man") {
      // The whole page, or the page of the command named (traffic-import(1), say); help's
      // own page is the whole one.
      let named = arguments.dropFirst().filter { !["--man", "help", "--help", "-h"].contains($0) }
      guard named.count <= 1 else {
        console.error(
          "traffic help: expects at most one COMMAND, got \(named.joined(separator: " "))")
        return .usage
      }
      guard let name = named.first else {
        console.print(ManualPage.text(), terminator: "")
        return .success
      }
      guard let command = commands[name] else {
        console.error(unknownCommand(name))
        return .usage
      }
      console.print(ManualPage.text(of: command), terminator: "")
      return .success
    }
    if first == "help" || first == "--help" || first == "-h" {
      // `help --help`: help's own help; `help COMMAND --help`: the command's.
      let named = arguments.dropFirst().filter { $0 != "--help" && $0 != "-h" }
      if named.isEmpty, arguments.count > 1 {
        console.print(helpOfHelp)
      } else if let name = named.first, name != "help" {
        guard let command = commands[name] else {
          console.error(unknownCommand(name))
          return .usage
        }
        console.print(command.help)
      } else {
        console.print(overview)
      }
      return .success
    }
    guard let command = commands[first] else {
      console.error(unknownCommand(first))
      return .usage
    }
    let rest = Array(arguments.dropFirst())
    if rest.contains("--help") || rest.contains("-h") {
      if rest.contains("--man") {
        console.print(ManualPage.text(of: command), terminator: "")
      } else {
        console.print(command.help)
      }
      return .success
    }
    let list = ArgumentList(rest, accepting: command.options)
    if let unknown = list.firstUnknownOption {
      // `--demo=foo` of a flag whose values are listed (`--demo=live`, `--demo=static`).
      let stem = (unknown.split(separator: "=", maxSplits: 1).first.map(String.init) ?? "") + "="
      let forms = command.options.flatMap(\.names).filter { $0.hasPrefix(stem) }
      if unknown.contains("="), !forms.isEmpty {
        let values = forms.map { String($0.dropFirst(stem.count)) }.joined(separator: " or ")
        console.error(
          "traffic \(command.name): \(stem.dropLast()) takes \(values), not '\(unknown.dropFirst(stem.count))'"
        )
        return .usage
      }
      console.error(unknownOption(unknown, of: command))
      return .usage
    }
    do {
      try await command.run(list, console: console)
      return .success
    } catch let error as UsageError {
      for failure in error.failures { console.error("traffic \(command.name): \(failure)") }
      return .usage
    } catch let error as TrafficQueryError
      where [.serverUnreachable, .timedOut, .offline].contains(error)
    {
      // Name the server and the reason, which HERE's error cases leave out.
      let server =
        rest.firstIndex(of: "--server").flatMap { $0 + 1 < rest.count ? rest[$0 + 1] : nil }
        ?? rest.first { $0.hasPrefix("--server=") }.map { String($0.dropFirst(9)) }
      let reason = TrafficEngine.lastTransportFailure.map { " (\($0))" } ?? ""
      console.error(
        "traffic \(command.name): \(error): cannot reach \(server ?? "the server")\(reason)")
      return .failure
    } catch let error as TrafficQueryError where (400..<500).contains(error.httpStatus) {
      console.error("traffic \(command.name): \(error)")
      return .usage
    } catch {
      console.error("traffic \(command.name): \(SystemErrorText.describe(error))")
      return .failure
    }
  }

}

extension CommandLineTool {
  /// `traffic help --help`: what help itself does.
  static let helpOfHelp = """
    Usage: traffic help [COMMAND] [--man]

    Prints the list of commands, or the help of COMMAND (the same as traffic COMMAND --help).
    With --man: the manual page in roff, traffic(1), or COMMAND's, traffic-COMMAND(1); read it
    with traffic help --man | man -l -
    """

  /// The message for a word that is no command, naming the nearest command (or `help`,
  /// `--version`...) when it is a slip of a letter or two away (`incident`, `imoprt`, `serv`,
  /// `hepl`, `--versoin`).
  static func unknownCommand(_ word: String) -> String {
    let words = Array(commands.keys) + ["help", "version", "--help", "--version"]
    let suggestion = nearest(to: word, among: words).map { " (did you mean '\($0)'?)" } ?? ""
    return "traffic: unknown command '\(word)'\(suggestion); traffic help lists them"
  }

  /// The message for an option `command` does not take, naming its nearest option when it
  /// is a slip of a letter or two away (`--circl`, `--jsno`, `--sever`), by the rule of
  /// ``nearest(to:among:)`` on the names without their dashes.
  static func unknownOption(_ option: String, of command: any Subcommand.Type) -> String {
    func word(_ name: String) -> String { String(name.drop { $0 == "-" }) }
    // `--sever=URL` is the option `--sever`; `--demo=live` and the like are values, not names.
    let given = String(option.prefix { $0 != "=" })
    let names = (command.options.flatMap(\.names) + ["--help"]).filter { !$0.contains("=") }
    let byWord = Dictionary(names.map { (word($0), $0) }, uniquingKeysWith: { first, _ in first })
    let suggestion =
      nearest(to: word(given), among: Array(byWord.keys)).flatMap { byWord[$0] }
      .map { " (did you mean \($0)?)" } ?? ""
    return "traffic \(command.name): unknown option \(option)\(suggestion); "
      + "see traffic help \(command.name)"
  }

  /// The candidate nearest to `word` when it is a slip away: at most one edit for a word of
  /// up to 5 letters, two for a longer one (``editDistance(_:_:)``), and fewer than its
  /// letters (`x` is no slip of `o`); `nil` when none is.
  static func nearest(to word: String, among candidates: [String]) -> String? {
    candidates.map { ($0, editDistance(word.lowercased(), $0)) }
      .filter { $0.1 <= max(1, min(2, $0.0.count / 3)) && $0.1 < $0.0.count }
      .min { ($0.1, $0.0) < ($1.1, $1.0) }?.0
  }

  /// The Damerau–Levenshtein distance (optimal string alignment): insertions, deletions,
  /// substitutions and swaps of neighbours each count one.
  static func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in 1...a.count {
      for j in 1...b.count {
        let cost = a[i - 1] == b[j - 1] ? 0 : 1
        table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }
}

/// One `traffic` subcommand.
protocol Subcommand {
  static var name: String { get }
  static var summary: String { get }
  /// The help before the options: usage lines and what the command does.
  static var synopsis: String { get }
  /// The options the command takes: they parse its arguments and make its help.
  static var options: [OptionDefinition] { get }
  /// The help after the options (empty by default).
  static var notes: String { get }
  static func run(_ arguments: ArgumentList, console: Console) async throws
}

extension Subcommand {
  static var notes: String { "" }

  /// The command's help: synopsis, options, notes.
  static var help: String {
    var text = synopsis + "\n\nOptions:\n" + OptionDefinition.helpText(options)
    if !notes.isEmpty { text += "\n\n" + notes }
    return text
  }
}

/// Where a command writes: standard output and error, or buffers in tests.
struct Console: Sendable {
  /// Writes text to the command's output.
  let write: @Sendable (String) -> Void
  /// Writes a message to the command's error stream.
  let writeError: @Sendable (String) -> Void
  /// Whether these are the process's own streams (then progress goes to standard error as
  /// a terminal line or log lines, by what standard error is).
  var isStandard = false
  /// How progress shows on a console of another kind (tests choose; quiet by default).
  var progressMode = ProgressReporter.Mode.quiet
  /// The least seconds between two progress lines on such a console's terminal.
  var progressInterval = 0.25

  /// Writes bytes to the command's output (a PNG for `-o -`); by default as text through
  /// `write`.
  var writeBytes: (@Sendable (Data) -> Void)? = nil

  /// Why writing the output failed, or `nil` while it has not (a command that writes much
  /// stops early when it has).
  var outputFailure: @Sendable () -> String? = { nil }

  /// Writes one line of output (or text ending as `terminator` says).
  func print(_ line: String = "", terminator: String = "\n") { write(line + terminator) }
  /// Writes bytes to the output, as they are.
  func writeData(_ data: Data) {
    if let writeBytes { writeBytes(data) } else { write(String(decoding: data, as: UTF8.self)) }
  }
  /// Writes one line to the error stream.
  func error(_ line: String) { writeError(line + "\n") }

  /// The process's standard output and standard error, written with every failure caught
  /// (`StandardStream`): never a trap on a full disk or a closed descriptor.
  static let standard = Console(
    write: { StandardStream.output.write($0) }, writeError: { StandardStream.error.write($0) },
    isStandard: true, writeBytes: { StandardStream.output.write($0) },
    outputFailure: { StandardStream.output.failure })
}
