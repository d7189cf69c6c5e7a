import Foundation
import TrafficFeeds

/// Sizes of the feed decoding benchmarks.
struct FeedBenchmarkSizes {
  /// Situation records of the DATEX II document.
  var datex2Records = 50_000
  /// Items of each JSON document: WZDx features, Open511 events, Waze alerts and jams,
  /// HERE v7 results, TomTom incidents.
  var items = 20_000
  /// Timed decodes per format (the median is reported); the first also gives the memory.
  var runs = 3

  static let quick = FeedBenchmarkSizes(datex2Records: 2_000, items: 1_000, runs: 1)
}

/// Decode throughput of every feed format (issue 4) on large generated documents
/// (`FeedWorkload`): the time of `FeedFormat.decoder.decode(_:options:)`, megabytes
/// (10^6 bytes) and incidents per second, and how far the resident set rose above what it
/// was before the decode (the document's bytes excluded, the decoded incidents included);
/// then the same for the document read from a file (`FeedInput.file`, streamed in chunks),
/// where memory holds one record at a time and the decoded incidents.
///
/// A format whose document fails to decode, or decodes to other than exactly the incidents
/// generated, is reported through `fail` (with the decoder's error or the first problems)
/// and has no figures; the other formats still run.
///
/// - Parameters:
///   - sizes: The document sizes and runs.
///   - report: Receives each measurement.
///   - fail: Receives a sentence per format that failed.
/// - Throws: A model error while generating the HERE v7 document (never for these values).
/// - Returns: A sum to fold into the sink.
func runFeedBenchmarks(
  _ sizes: FeedBenchmarkSizes, report: (Measurement) -> Void, fail: (String) -> Void
) throws -> Int {
  var workload = FeedWorkload(seed: 4)
  let documents: [(format: FeedFormat, count: Int, make: (inout FeedWorkload) throws -> Data)] = [
    (.datex2, sizes.datex2Records, { $0.datex2(records: sizes.datex2Records) }),
    (.wzdx, sizes.items, { $0.wzdx(features: sizes.items) }),
    (.open511, sizes.items, { $0.open511(events: sizes.items) }),
    (.waze, sizes.items, { $0.waze(items: sizes.items) }),
    (.hereV7, sizes.items, { try $0.hereV7(results: sizes.items) }),
    (.tomtom, sizes.items, { $0.tomtom(incidents: sizes.items) }),
  ]
  var sink = 0
  for (format, count, make) in documents {
    let data = try make(&workload)
    let options = FeedOptions(sourceName: "bench")
    let decoder = format.decoder
    let baseline = ResidentMemory.startPeak()
    let decoded = timed { () -> Result<FeedDocument, FeedError> in
      do throws(FeedError) {
        return .success(try decoder.decode(data, options: options))
      } catch {
        return .failure(error)
      }
    }
    let growth = ResidentMemory.peakGrowthInMegabytes(since: baseline)
    let first = decoded.milliseconds
    let document: FeedDocument
    switch decoded.result {
    case .success(let result): document = result
    case .failure(let error):
      fail("feeds.\(format): \(rounded(Double(data.count) / 1e6)) MB did not decode: \(error)")
      continue
    }
    guard document.incidents.count == count else {
      let problems = document.problems.prefix(3).map(\.description).joined(separator: "; ")
      fail(
        "feeds.\(format): \(document.incidents.count) incidents decoded of \(count) generated; "
          + "\(document.problems.count) problems (\(problems))")
      continue
    }
    sink &+= document.incidents.count
    var times = [first]
    for _ in 1..<max(1, sizes.runs) {
      let (again, time) = try timed { try decoder.decode(data, options: options) }
      sink &+= again.incidents.count
      times.append(time)
    }
    times.sort()
    let median = times[times.count / 2]
    let megabytes = Double(data.count) / 1e6
    let name = "feeds.\(format)"
    report(
      Measurement(
        name: "\(name).size", value: megabytes, unit: "MB", n: count, flatbushMilliseconds: nil))
    report(
      Measurement(
        name: "\(name).decode", value: median, unit: "ms", n: count, flatbushMilliseconds: nil))
    report(
      Measurement(
        name: "\(name).throughput", value: megabytes / (median / 1000), unit: "MB/s", n: count,
        flatbushMilliseconds: nil))
    report(
      Measurement(
        name: "\(name).incidents-per-second", value: Double(count) / (median / 1000),
        unit: "incidents/s", n: count, flatbushMilliseconds: nil))
    if let growth {
      report(
        Measurement(
          name: "\(name).peak-rss-growth", value: growth, unit: "MB", n: count,
          flatbushMilliseconds: nil))
    }
    // The same document from a file, as `traffic import` reads it: streamed in chunks.
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "traffic-bench-\(format)-\(getpid())")
    try data.write(to: url)
    defer { try? FileManager.default.removeItem(at: url) }
    let fileBaseline = ResidentMemory.startPeak()
    let (fromFile, fileTime) = try timed { try decoder.decode(.file(url), options: options) }
    let fileGrowth = ResidentMemory.peakGrowthInMegabytes(since: fileBaseline)
    guard fromFile.incidents.count == count else {
      fail("feeds.\(format): \(fromFile.incidents.count) incidents from the file, not \(count)")
      continue
    }
    sink &+= fromFile.incidents.count
    report(
      Measurement(
        name: "\(name).file.decode", value: fileTime, unit: "ms", n: count,
        flatbushMilliseconds: nil))
    if let fileGrowth {
      report(
        Measurement(
          name: "\(name).file.peak-rss-growth", value: fileGrowth, unit: "MB", n: count,
          flatbushMilliseconds: nil))
    }
  }
  return sink
}
