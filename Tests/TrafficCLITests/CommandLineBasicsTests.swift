import Foundation
import Testing
import TrafficBuildInfo

@testable import traffic

/// What a new user types first: the version, help on help, and help true to the commands.
@Suite struct CommandLineBasicsTests {
  @Test(arguments: ["--version", "version"])
  func versionNamesTheBuild(argument: String) async {
    let result = await runTraffic([argument])
    #expect(result.status == .success)
    #expect(result.output == "traffic \(BuildInfo.version) (revision \(BuildInfo.revision))\n")
    #expect(result.errors.isEmpty)
  }

  @Test func helpOnHelpIsTheOverview() async {
    let result = await runTraffic(["help", "help"])
    #expect(result.status == .success)
    #expect(result.output == CommandLineTool.overview + "\n")
  }

  /// `help --help` is help's own help, not an unknown command; `help COMMAND --help` is the
  /// command's.
  @Test(arguments: [["help", "--help"], ["help", "-h"], ["--help", "--help"]])
  func helpOnItsOwnOptionSaysWhatHelpDoes(arguments: [String]) async {
    let result = await runTraffic(arguments)
    #expect(result.status == .success, "\(result.errors)")
    #expect(result.output == CommandLineTool.helpOfHelp + "\n")
    #expect(result.output.hasPrefix("Usage: traffic help [COMMAND] [--man]"))
    let route = await runTraffic(arguments + ["route"])
    #expect(route.output == RouteCommand.help + "\n")
  }

  @Test func theOverviewSaysWhatRouteDoes() {
    let line = CommandLineTool.overview.split(separator: "\n").first {
      $0.hasPrefix("  route ")
    }
    #expect(line?.contains("fastest route") == true, "\(line ?? "")")
    #expect(CommandLineTool.overview.contains("--version"))
  }

  @Test func theManualPageHasEveryCommandAndOption() async {
    let result = await runTraffic(["help", "--man"])
    #expect(result.status == .success)
    let page = result.output
    #expect(page.hasPrefix(".TH TRAFFIC 1 "))
    for command in CommandLineTool.commands.values {
      #expect(page.contains(".SS \(ManualPage.escaped(command.name))\n"), "\(command.name)")
      for option in command.options {
        #expect(
          page.contains("\\fB\(ManualPage.escaped(option.spelling))\\fR"),
          "\(command.name) \(option.spelling)")
      }
    }
    // Every line that starts with a dot is a request of the man macros, none is text.
    let requests: Set<Substring> = [
      ".TH", ".SH", ".SS", ".TP", ".PP", ".B", ".I", ".br", ".nf", ".fi",
    ]
    for line in page.split(separator: "\n") where line.hasPrefix(".") {
      #expect(requests.contains(line.prefix { $0 != " " }), "\(line)")
    }
    // ASCII only (groff reads raw UTF-8 as Latin-1): `×` is written \[u00D7].
    let nonASCII = page.unicodeScalars.filter { !$0.isASCII }
    #expect(nonASCII.isEmpty, "\(String(String.UnicodeScalarView(nonASCII)))")
    #expect(page.contains("\\[u00D7]"))
    // Every variable the commands read is named.
    for variable in ["TRAFFIC_DB", "TRAFFIC_POSTGRES", "TRAFFIC_API_KEYS", "TRAFFIC_PORT"] {
      #expect(page.contains("\\fB\(variable)\\fR"), "\(variable)")
    }
  }

  @Test(arguments: [
    (
      ["incident"],
      "traffic: unknown command 'incident' (did you mean 'incidents'?); traffic help lists them"
    ),
    (
      ["imoprt"],
      "traffic: unknown command 'imoprt' (did you mean 'import'?); traffic help lists them"
    ),
    (
      ["help", "serv"],
      "traffic: unknown command 'serv' (did you mean 'serve'?); traffic help lists them"
    ),
    (["xyzzy"], "traffic: unknown command 'xyzzy'; traffic help lists them"),
    (["hepl"], "traffic: unknown command 'hepl' (did you mean 'help'?); traffic help lists them"),
    (["hlep"], "traffic: unknown command 'hlep' (did you mean 'help'?); traffic help lists them"),
    (
      ["--versoin"],
      "traffic: unknown command '--versoin' (did you mean '--version'?); traffic help lists them"
    ),
    (
      ["--hlep"],
      "traffic: unknown command '--hlep' (did you mean '--help'?); traffic help lists them"
    ),
    (
      ["incidents", "--circl", "52.5,13.4,1000"],
      "traffic incidents: unknown option --circl (did you mean --circle?); "
        + "see traffic help incidents"
    ),
    (
      ["incidents", "--jsno"],
      "traffic incidents: unknown option --jsno (did you mean --json?); see traffic help incidents"
    ),
    (
      ["flow", "--sever=http://127.0.0.1:1"],
      "traffic flow: unknown option --sever=http://127.0.0.1:1 (did you mean --server?); "
        + "see traffic help flow"
    ),
    (
      ["serve", "--prot", "8080"],
      "traffic serve: unknown option --prot (did you mean --port?); see traffic help serve"
    ),
    (["import", "--bogus"], "traffic import: unknown option --bogus; see traffic help import"),
    (["serve", "--demo=foo"], "traffic serve: --demo takes live or static, not 'foo'"),
    (
      ["lookup", "--db", "/nonexistent/s.sqlite"], "traffic lookup: expects exactly one ORIGINAL_ID"
    ),
    (
      ["export", "-o", "x.json"],
      "traffic export: expects one format: osrm, valhalla, profiles, datex2 or wzdx"
    ),
  ])
  func mistakesAreNamedForWhatTheyAre(arguments: [String], message: String) async {
    let result = await runTraffic(arguments)
    #expect(result.status == .usage)
    #expect(result.errors == message + "\n")
  }
}
