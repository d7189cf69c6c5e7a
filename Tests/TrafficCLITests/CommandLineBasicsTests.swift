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
}
