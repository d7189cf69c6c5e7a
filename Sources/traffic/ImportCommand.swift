import Codec
import Foundation
import Traffic
import TrafficFeeds
import TrafficPostgres
import TrafficSQLite

/// `traffic import FILE...`: feed documents into the store.
enum ImportCommand: Subcommand {
  static let name = "import"
  static let summary = "Import feed documents (DATEX II, WZDx, Open511, Waze, HERE v7, TomTom)"
  static let synopsis = """
    Usage: traffic import [--db PATH] [--format auto|\(FeedFormat.allCases.map(\.rawValue).joined(separator: "|"))]
                          [--source NAME] [--axis-order lat-lon|lon-lat] [--records] [--json] FILE...

    Decodes each file and stores its incidents: a new incident is added, a changed one gets
    a new version, an unchanged one is left alone (importing twice changes nothing), and an
    incident another feed already reported is merged into it. A full-refresh document ends
    the incidents of its feed that it no longer carries.
    """
  static let options: [OptionDefinition] =
    [
      OptionDefinition(
        "--format", "F", "the format of every file; auto (default) recognises each one"),
      OptionDefinition(
        "--source", "NAME",
        """
        the source (feed) the files come from, as `?source=` of a push
        and NAME= of `serve --feed` (--feed NAME is the same); by
        default the source the document names itself (a WZDx
        feed_info publisher: wzdx:PUBLISHER, so that the feed's pushes
        and polls update what was imported), else one per file,
        FORMAT:FILENAME
        """),
      OptionDefinition("--feed", "NAME", "the same as --source"),
      OptionDefinition(
        "--axis-order", "O", "coordinate order of DATEX II posList (default lat-lon)"),
      OptionDefinition(
        flag: "--records",
        """
        also print what happened to each record, one line each:
        ID OUTCOME [-> INCIDENT] (added, updated, unchanged, stale,
        merged into another feed's INCIDENT, or ended)
        """),
      ProgressOption.definition,
      JSONSummary.option,
    ] + EngineArguments.stores
  static let notes = """
    Files are read as they are decoded (the file is never held whole; its incidents are);
    FILE - reads standard input. Every FILE must exist before anything is written: a
    missing one fails the command at once. Broken records are skipped and listed; a file
    that cannot be decoded is reported and the other files still import. Exit status 64
    when any file failed.
    """

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    let formatName = try arguments.option("--format") ?? "auto"
    let format: FeedFormat?
    if formatName == "auto" {
      format = nil
    } else {
      guard let named = FeedFormat(rawValue: formatName) else {
        throw UsageError(
          "--format: unknown format '\(formatName)'; use auto or one of \(FeedFormat.allCases.map(\.rawValue).joined(separator: ", "))"
        )
      }
      format = named
    }
    let sourceOption = try arguments.option("--source")
    let feedOption = try arguments.option("--feed")
    if sourceOption != nil, feedOption != nil {
      throw UsageError("--source and --feed name the same thing; give one")
    }
    let feedName = sourceOption ?? feedOption
    if let feedName, !FeedDocument.isValidSourceName(feedName) {
      throw UsageError(
        "\(sourceOption != nil ? "--source" : "--feed") must have \(FeedDocument.sourceNameRule)")
    }
    var axisOrder = FeedOptions.AxisOrder.latLon
    if let order = try arguments.option("--axis-order") {
      switch order {
      case "lat-lon": axisOrder = .latLon
      case "lon-lat": axisOrder = .lonLat
      default: throw UsageError("--axis-order expects lat-lon or lon-lat, got '\(order)'")
      }
    }
    let listsRecords = arguments.flag("--records")
    let json = arguments.flag("--json")
    var summaries: [JSONValue] = []
    let progress = ProgressOption.reporter(&arguments, console: console)
    defer { progress.stop() }
    // Every input is there before the store is opened (and created): a mistyped name
    // leaves nothing behind.
    let files = arguments.upcomingPositionals
    guard !files.isEmpty else {
      throw UsageError("expects at least one FILE (- for standard input)")
    }
    guard files.filter({ $0 == "-" }).count <= 1 else {
      throw UsageError("- (standard input) can be read once; give it once")
    }
    let inputs = try files.map { file throws(UsageError) in try FileArguments.feed(file) }
    // Each file's format is known before the store is opened (and created): a command
    // whose every file is no feed leaves nothing behind.
    var failures: [String] = []
    var formats: [FeedFormat?] = []
    for (file, input) in zip(files, inputs) {
      if let format {
        formats.append(format)
        continue
      }
      do throws(UsageError) {
        formats.append(try Self.detect(input, file: file))
      } catch {
        formats.append(nil)
        failures.append(error.description)
      }
    }
    guard formats.contains(where: { $0 != nil }) else {
      throw UsageError(failures: failures)
    }
    let engine = try EngineArguments.open(&arguments, creating: true)
    // On a database that nodes share, each file's write first catches up with what the
    // nodes committed since the engine loaded (the writers' turn asks the follower).
    let follower = engine.store is PostgresTrafficStore ? try? PostgresSync(engine: engine) : nil
    defer { follower?.stop() }
    _ = try arguments.positionals()

    for (file, (input, detected)) in zip(files, zip(inputs, formats)) {
      guard let fileFormat = detected else { continue }
      let url = URL(fileURLWithPath: file == "-" ? "stdin" : file)
      let options = FeedOptions(
        sourceName: "\(fileFormat.rawValue):\(url.lastPathComponent)", axisOrder: axisOrder)
      let size =
        file == "-" || FileArguments.kind(file) != .regular
        ? nil : (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? nil
      progress.begin(
        "import", detail: "\(url.lastPathComponent): decoding", total: size.map(Int64.init),
        unit: .bytes)
      // The name given, else the feed's own (so that its pushes and polls update what was
      // imported), else the file's.
      var application: FeedApplication
      do {
        application = try FeedApplication(
          decoding: input.reporting(to: progress), format: fileFormat, options: options,
          given: feedName)
      } catch {
        progress.finish()
        failures.append("\(file): \(error)")
        continue
      }
      let incidentCount = application.incidentCount
      progress.begin(
        "import",
        detail: "\(url.lastPathComponent): storing "
          + ProgressReporter.amount(Int64(incidentCount), .items("incidents")),
        unit: .items(""))
      // The snapshot after the write is built only should a later file of the command
      // read it: this process ends after storing.
      let report = try application.apply(
        to: engine, building: .onFirstRead, recordingEach: listsRecords)
      let source = application.source
      let document = application.document
      progress.finish()
      if json {
        var summary: [String: JSONValue] = [
          "file": .string(file), "format": .string(fileFormat.rawValue),
          "source": .string(source), "incidents": JSONSummary.number(incidentCount),
          "added": JSONSummary.number(report.added),
          "updated": JSONSummary.number(report.updated),
          "unchanged": JSONSummary.number(report.unchanged),
          "stale": JSONSummary.number(report.stale), "merged": JSONSummary.number(report.merged),
          "ended": JSONSummary.number(report.ended),
          "skipped": JSONSummary.number(document.problems.count),
          "problems": .array(document.problems.map { .string("\($0)") }),
        ]
        if listsRecords {
          summary["records"] = .array(
            report.records.map {
              .object([
                "id": .string($0.id), "outcome": .string($0.outcome.rawValue),
                "incident": .string($0.incident),
              ])
            })
        }
        summaries.append(.object(summary))
        continue
      }
      console.print(
        "\(fileFormat.rawValue) \(url.lastPathComponent): \(incidentCount) incident\(incidentCount == 1 ? "" : "s") "
          + "(\(report.added) added, \(report.updated) updated, \(report.unchanged) unchanged, \(report.stale) stale, "
          + "\(report.merged) merged, \(report.ended) ended), \(document.problems.count) skipped")
      for record in report.records {
        let into = record.incident == record.id ? "" : " -> \(record.incident)"
        console.print("  \(record.id) \(record.outcome.rawValue)\(into)")
      }
      for problem in document.problems.prefix(20) {
        console.error("  skipped: \(problem)")
      }
      if document.problems.count > 20 {
        console.error("  ... and \(document.problems.count - 20) more skipped records")
      }
    }
    EngineArguments.finishWriting(engine, command: name, console: console)
    // Stored, but a server on the file holds its incidents in memory and never reads them.
    if let sqlite = engine.store as? SQLiteTrafficStore,
      let pid = ServeLock.server(holding: sqlite.path)
    {
      console.error(
        "traffic import: note: \(sqlite.path) is served by traffic serve"
          + (pid > 0 ? " (pid \(pid))" : "")
          + ", which holds its incidents in memory: it shows these after it restarts; "
          + "push documents to a running server instead (POST /v1/feeds/FORMAT)")
    }
    if json {
      JSONSummary.print(
        .object([
          "files": .array(summaries),
          "failures": JSONSummary.failures(failures, files: files),
        ]), console: console)
    }
    if !failures.isEmpty {
      throw UsageError(failures: failures)
    }
  }

  /// The format of a feed file recognised from its first bytes.
  ///
  /// - Throws: `UsageError` naming the file: unreadable, empty, or of no known format.
  static func detect(_ input: FeedInput, file: String) throws(UsageError) -> FeedFormat {
    let found: FeedFormat?
    do { found = try FeedFormat.detect(input) } catch { throw UsageError("\(file): \(error)") }
    if let found { return found }
    // Nothing but blanks (within the bytes detection reads) is no feed of any format.
    let blank = ((try? input.prefix(4_096)) ?? Data([0])).allSatisfy {
      $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D
    }
    throw UsageError(
      "\(file): "
        + (blank
          ? "is empty; expects a feed document (DATEX II, WZDx, Open511, Waze, HERE v7, TomTom)"
          : "not a recognised feed format; name it with --format"))
  }
}
