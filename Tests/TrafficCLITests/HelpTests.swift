import Testing

@testable import traffic

@Suite struct HelpTests {
  @Test func everyCommandIsListedAndExplained() async {
    let overview = await runTraffic(["help"])
    #expect(overview.status == .success)
    let names = CommandLineTool.commands.keys.sorted()
    // API.md's commands, plus `within`.
    #expect(
      Set(names).isSuperset(of: [
        "serve", "import", "network", "probes", "incidents", "lookup", "nearest", "flow", "route",
        "render", "pick",
      ]))
    for name in names {
      #expect(overview.output.contains("  \(name) "), "overview lacks \(name)")
      let help = await runTraffic(["help", name])
      #expect(help.status == .success)
      #expect(help.output.contains("Usage: traffic \(name)"), "help of \(name)")
      let dashed = await runTraffic([name, "--help"])
      #expect(dashed.output == help.output, "\(name) --help")
    }
  }

  /// The usage lines name only options the command takes (help true to the command).
  @Test func usageLinesNameOnlyOptionsTheCommandTakes() throws {
    for command in CommandLineTool.commands.values {
      let names = Set(command.options.flatMap(\.names)).union(["--help"])
      // The usage lines: from "Usage:" to the first blank line.
      let usage = command.synopsis.components(separatedBy: "\n\n")[0]
      #expect(usage.hasPrefix("Usage: traffic \(command.name)"))
      for match in usage.matches(of: /--[a-z][a-z0-9-]*(=[a-z]+)?/) {
        let option = String(match.output.0)
        #expect(
          names.contains(option) || names.contains(String(option.prefix { $0 != "=" })),
          "traffic \(command.name)'s usage names \(option), which it does not take")
      }
    }
  }

  /// The usage lines say what the contract's synopsis says (API.md): every command that
  /// can ask a server shows `--server URL`, serve shows the demo, and route's `--json` says
  /// what each form prints; the manual pages, made from the same words, too.
  @Test func usageLinesShowTheServerTheDemoAndWhatJSONIs() async {
    var asking: [String: String] = [:]
    for (name, command) in CommandLineTool.commands
    where command.options.flatMap(\.names).contains("--server") {
      asking[name] = command.synopsis.components(separatedBy: "\n\n")[0]
    }
    #expect(
      Set(asking.keys).isSuperset(of: [
        "incidents", "lookup", "nearest", "flow", "route", "table", "render", "pick",
      ]))
    for (name, usage) in asking.sorted(by: { $0.key < $1.key }) {
      #expect(usage.contains("--db PATH | --server URL"), "traffic \(name): \(usage)")
      let page = await runTraffic(["help", name, "--man"])
      #expect(page.output.contains("\\-\\-db PATH | \\-\\-server URL"), "\(name)")
    }
    #expect(ServeCommand.synopsis.components(separatedBy: "\n\n")[0].contains("[--demo"))
    let json = RouteCommand.options.first { $0.names == ["--json"] }?.help ?? ""
    #expect(json.contains("--from/--to the HERE Routing v8 answer"), "\(json)")
    #expect(json.contains("--coords or --polyline that of POST /v1/route/traffic"), "\(json)")
  }

  @Test func noArgumentsIsAUsageErrorThatShowsTheOverview() async {
    let result = await runTraffic([])
    #expect(result.status == .usage)
    #expect(result.errors.contains("Commands:"))
  }
}

@Suite struct OptionDefinitionTests {
  @Test func helpListsEveryOptionACommandTakesInItsColumns() {
    for command in CommandLineTool.commands.values {
      let help = command.help
      for option in command.options {
        #expect(help.contains("\n  \(option.spelling)"), "\(command.name): \(option.spelling)")
      }
    }
    let text = OptionDefinition.helpText([
      OptionDefinition("--port", "N", "the port\nsecond line"),
      OptionDefinition(flag: "--json", "JSON"),
      OptionDefinition("--a-very-long-option", "WITH,A,LONG,VALUE", "help"),
    ])
    #expect(
      text == """
          --port N              the port
                                second line
          --json                JSON
          --a-very-long-option WITH,A,LONG,VALUE
                                help
        """)
  }

  @Test func anOptionNoDefinitionNamesIsRefused() throws {
    var arguments = ArgumentList(
      ["--port", "80", "--typo", "x"], accepting: [OptionDefinition("--port", "N", "")])
    #expect(try arguments.option("--port") == "80")
    #expect(throws: UsageError.self) { try arguments.positionals() }
  }

  /// `help COMMAND --man` (and `COMMAND --help --man`) is that command's page in roff, with
  /// the same words as its section of the whole manual.
  @Test func eachCommandHasItsManualPage() async {
    for command in CommandLineTool.commands.values {
      let page = await runTraffic(["help", command.name, "--man"])
      #expect(page.status == .success)
      #expect(
        page.output.hasPrefix(".TH TRAFFIC\\-\(command.name.uppercased()) 1 "), "\(command.name)")
      #expect(page.output.contains(".SH NAME\ntraffic\\-\(command.name) \\- "))
      for option in command.options {
        #expect(
          page.output.contains("\\fB\(ManualPage.escaped(option.spelling))\\fR"),
          "\(command.name) \(option.spelling)")
      }
      let dashed = await runTraffic([command.name, "--help", "--man"])
      #expect(dashed.output == page.output)
    }
    let unknown = await runTraffic(["help", "nonsense", "--man"])
    #expect(unknown.status == .usage)
    #expect(unknown.errors == "traffic: unknown command 'nonsense'; traffic help lists them\n")
  }
}
