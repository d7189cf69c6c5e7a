import TrafficBuildInfo

/// `traffic help --man`: the manual page traffic(1) in roff (`traffic help COMMAND --man`:
/// one command's page), made from the same command
/// summaries, synopses and option definitions as `--help`, so that the two cannot drift
/// apart. `make install` writes it to `share/man/man1/traffic.1`.
enum ManualPage {
  static func text() -> String {
    var page: [String] = [
      ".TH TRAFFIC 1 \"\" \"swift-traffic \(BuildInfo.version)\" \"User Commands\"",
      ".SH NAME",
      "traffic \\- the swift-traffic command line: live traffic incidents, flow and routes",
      ".SH SYNOPSIS",
      ".B traffic",
      ".I COMMAND",
      "[\\fIOPTIONS\\fR]",
      ".br",
      ".B traffic help",
      "[\\fICOMMAND\\fR]",
      ".br",
      ".B traffic --version",
      ".SH DESCRIPTION",
      escaped(
        "traffic imports traffic feeds (DATEX II, WZDx, Open511, Waze, HERE v7, TomTom), road "
          + "networks and vehicle probes into a store, answers queries for incidents, flow "
          + "and routes from it, and serves it over HTTP (HERE Traffic API v7 and Routing "
          + "API v8 compatible). Wherever a command reads or writes a file, - is standard "
          + "input or output; a store is no such file (--db - is refused)."),
      ".SH COMMANDS",
    ]
    for command in CommandLineTool.commands.values.sorted(by: { $0.name < $1.name }) {
      page += [".SS \(escaped(command.name))", escaped(command.summary) + ".", ".PP"]
      page += body(of: command)
    }
    page += [
      ".SH ENVIRONMENT",
      ".TP", "\\fBTRAFFIC_DB\\fR",
      "The SQLite store used when no \\fB\\-\\-db\\fR is given (default ./traffic.sqlite).",
      ".TP", "\\fBTRAFFIC_POSTGRES\\fR",
      "A PostgreSQL store for \\fBtraffic serve\\fR.",
      ".TP", "\\fBTRAFFIC_API_KEYS\\fR",
      escaped(
        "API keys of traffic serve with their scopes, one key per line as in a keys file "
          + "(--keys-file): kept out of ps, unlike --api-key."),
      ".TP", "\\fBTRAFFIC_PORT\\fR",
      "The port of \\fBtraffic serve\\fR when no \\fB\\-\\-port\\fR is given (default 8080).",
      ".TP", "\\fBTRAFFIC_RESOURCES\\fR",
      escaped(
        "A directory holding the web map (web/), the text catalogs (Localization/), the "
          + "demo's recording (demo/) and the API description (openapi.json), instead of the "
          + "resource bundles beside the binary."),
      ".TP", "\\fBXDG_CACHE_HOME\\fR",
      escaped("Where the demo keeps its state (swift-traffic/ in it; default ~/.cache)."),
      ".SH EXIT STATUS",
      "0 success, 64 bad usage or bad input, 1 any other failure.",
      ".SH SEE ALSO",
      "The HTTP API, feeds and operations guides in the project's docs/ folder.",
    ]
    return page.joined(separator: "\n") + "\n"
  }

  /// The manual page of one command, traffic-COMMAND(1) (`traffic help COMMAND --man`):
  /// the same words as its section of the whole page.
  static func text(of command: any Subcommand.Type) -> String {
    let title = "traffic-\(command.name)"
    var page: [String] = [
      ".TH \(escaped(title.uppercased())) 1 \"\" \"swift-traffic \(BuildInfo.version)\" "
        + "\"User Commands\"",
      ".SH NAME",
      "\(escaped(title)) \\- \(escaped(command.summary))",
      ".SH DESCRIPTION",
    ]
    page += body(of: command)
    page += [
      ".SH EXIT STATUS",
      "0 success, 64 bad usage or bad input, 1 any other failure.",
      ".SH SEE ALSO",
      "\\fBtraffic\\fR(1), the whole manual: \\fBtraffic help \\-\\-man\\fR",
    ]
    return page.joined(separator: "\n") + "\n"
  }

  /// A command's synopsis, options and notes in roff.
  private static func body(of command: any Subcommand.Type) -> [String] {
    var page = [".nf"]
    page += command.synopsis.split(separator: "\n", omittingEmptySubsequences: false)
      .map { escaped(String($0)) }
    page.append(".fi")
    for option in command.options {
      page += [".TP", "\\fB\(escaped(option.spelling))\\fR"]
      page.append(
        escaped(
          option.help.split(separator: "\n").map {
            $0.trimmingCharacters(in: .whitespaces)
          }
          .joined(separator: " ")))
    }
    if !command.notes.isEmpty {
      page += [".PP", ".nf"]
      page += command.notes.split(separator: "\n", omittingEmptySubsequences: false)
        .map { escaped(String($0)) }
      page.append(".fi")
    }
    return page
  }

  /// Text made safe for roff: backslashes doubled, minus signs written as `\-`, and a line
  /// that would start with `.` or `'` (a request) guarded.
  static func escaped(_ text: String) -> String {
    var out = text.replacingOccurrences(of: "\\", with: "\\e")
      .replacingOccurrences(of: "-", with: "\\-")
    if out.hasPrefix(".") || out.hasPrefix("'") { out = "\\&" + out }
    // Characters beyond ASCII as groff's Unicode escapes (`×` is `\[u00D7]`): a page is read
    // in any locale, and groff takes raw UTF-8 as Latin-1.
    guard !out.unicodeScalars.allSatisfy(\.isASCII) else { return out }
    return out.unicodeScalars.map { scalar in
      scalar.isASCII ? String(scalar) : "\\[u" + String(format: "%04X", scalar.value) + "]"
    }.joined()
  }
}
