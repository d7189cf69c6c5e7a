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
