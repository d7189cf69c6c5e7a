import Codec
import Foundation
import Synchronization
import Traffic

/// Records the demo's SUMO probe stream into an NDJSON probe file (API.md, "Probe formats")
/// for ``RecordedProbeStream``: the static demo's traffic.
///
/// SUMO runs unpaced (as fast as it can) and the probes of a window of simulated time are
/// written, one object per line — `{"id","time","lat","lng","speed","heading"}`, `time` in
/// Unix seconds from `epoch` + the simulation second. The default window, 1 200 to 2 400 s,
/// skips a first rush hour and quiet period, so that the network is full when the recording
/// begins, and covers one rush hour and quiet period (the roadworks queue builds and clears):
/// the traffic at its end is like that at its beginning, and the loop hardly shows.
///
/// `Sources/TrafficDemo/Resources/a10kw-probes.ndjson` was made with
/// `TRAFFIC_DEMO_RECORD=Sources/TrafficDemo/Resources/a10kw-probes.ndjson swift test
/// -Xswiftc -DTRAFFIC_DEMO_TOOLS --filter DemoRecorderTests`
/// (SUMO 1.15 from Debian 12, the default configuration below).
package enum DemoRecorder {
  /// Where recorded times start: simulation second 0 (2025-01-01T00:00:00Z).
  package static let defaultEpoch = Date(timeIntervalSince1970: 1_735_689_600)

  /// The recording's defaults: the demo scenario with one vehicle in ten reporting every 2 s.
  ///
  /// - Parameter scenario: the demo scenario.
  /// - Returns: the configuration.
  package static func defaultConfiguration(
    for scenario: DemoScenario
  )
    -> SUMOProbeStream
    .Configuration
  {
    var configuration = SUMOProbeStream.Configuration(scenario: scenario)
    configuration.probeShare = 0.1
    configuration.probePeriodInSeconds = 2
    configuration.demand.durationInSeconds = 3_600
    return configuration
  }

  /// Runs SUMO and writes the probes of a window of simulated time.
  ///
  /// - Parameters:
  ///   - configuration: how SUMO runs.
  ///   - window: the simulated seconds recorded.
  ///   - epoch: the date of simulation second 0.
  ///   - url: the NDJSON file written (replaced).
  /// - Returns: the number of probes written.
  /// - Throws: ``DemoError`` when SUMO is missing or fails, or the file cannot be written.
  /// - Complexity: O(p) for p probes, plus SUMO's own run time.
  @discardableResult
  package static func record(
    configuration: SUMOProbeStream.Configuration, window: ClosedRange<Double> = 1_200...2_400,
    epoch: Date = defaultEpoch, to url: URL
  ) throws(DemoError) -> Int {
    let collected = Mutex<[Probe]>([])
    let stream = try SUMOProbeStream(
      configuration: configuration, origin: epoch, window: window
    ) { batch in collected.withLock { $0 += batch } }
    try stream.start()
    stream.waitUntilFinished(timeoutInSeconds: 3_600)
    stream.stop()
    if let error = stream.statistics.lastError { throw .sumoFailed(error) }
    let probes = collected.withLock { $0 }
    // NDJSON: one object per line, numbers as the recording has always written them
    // (whole seconds, degrees to 6 decimals, speeds and headings to 2).
    var text: [UInt8] = []
    text.reserveCapacity(probes.count * 100)
    var writer = JSONWriter(capacity: 128)
    for probe in probes {
      writer.beginObject()
      writer.member("id", probe.vehicleID)
      writer.member("time", probe.time.timeIntervalSince1970.rounded())
      writer.member("lat", probe.coordinates.latitude, decimals: 6)
      writer.member("lng", probe.coordinates.longitude, decimals: 6)
      if let speed = probe.speedInMetersPerSecond {
        writer.member("speed", speed, decimals: 2)
      }
      if let heading = probe.headingInDegrees {
        writer.member("heading", heading, decimals: 2)
      }
      writer.endObject()
      text += writer.take()
      text.append(UInt8(ascii: "\n"))
    }
    do {
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text).write(to: url, options: .atomic)
    } catch {
      throw .io(path: url.path, reason: SystemErrorText.reason(error))
    }
    return probes.count
  }

}
