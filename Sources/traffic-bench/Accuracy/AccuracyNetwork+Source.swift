import Foundation
import TrafficTestSupport
import Zlib

extension AccuracyNetwork {
  /// The peak rate of a network given by its file when TRAFFIC_ACCURACY_PEAK_RATE does not
  /// say: Berlin's (a city district of about 50 lane-kilometres). Demand that suits a
  /// network depends on its bottlenecks more than on its size, so a user's network is best
  /// run with its own rate.
  static let defaultPeakRate = 0.8

  /// The networks TRAFFIC_ACCURACY_NETWORK asks for: every built-in network without it; the
  /// built-in networks whose names begin with it; or the user's own network when it names a
  /// file (a SUMO `.net.xml`, optionally gzipped, or an OpenStreetMap `.osm` or `.osm.bz2`
  /// extract that netconvert turns into one), demanded at TRAFFIC_ACCURACY_PEAK_RATE
  /// vehicles per second at the peak of a usual day.
  ///
  /// - Throws: `AccuracyError` (a usage error) for a name that matches nothing, a file that
  ///   cannot be read or is of another kind, or a peak rate that is not a positive number.
  static func selected(
    from builtIn: [AccuracyNetwork],
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> [AccuracyNetwork] {
    let rate = try peakRate(environment)
    guard let setting = environment["TRAFFIC_ACCURACY_NETWORK"], !setting.isEmpty else {
      return builtIn.map { network in
        var network = network
        network.peakRate = rate ?? network.peakRate
        return network
      }
    }
    let looksLikeFile =
      setting.contains("/")
      || [".xml", ".gz", ".osm", ".bz2", ".pbf"].contains {
        setting.lowercased().hasSuffix($0)
      }
    guard looksLikeFile else {
      let chosen = builtIn.filter { $0.name.hasPrefix(setting) }
      guard !chosen.isEmpty else {
        throw AccuracyError(
          "TRAFFIC_ACCURACY_NETWORK=\(setting) names none of "
            + builtIn.map(\.name).joined(separator: ", ")
            + " and is not a network file (.net.xml, .net.xml.gz, .osm, .osm.bz2)",
          isUsage: true)
      }
      return chosen.map { network in
        var network = network
        network.peakRate = rate ?? network.peakRate
        return network
      }
    }
    let url = URL(fileURLWithPath: setting)
    var isFolder: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder),
      !isFolder.boolValue, FileManager.default.isReadableFile(atPath: url.path)
    else {
      throw AccuracyError(
        "TRAFFIC_ACCURACY_NETWORK=\(setting): no readable file there", isUsage: true)
    }
    let lower = url.lastPathComponent.lowercased()
    let source: Source
    let kind: String
    if lower.hasSuffix(".net.xml") || lower.hasSuffix(".net.xml.gz") {
      source = .sumoFile(url)
      kind = "your SUMO network"
    } else if lower.hasSuffix(".osm") || lower.hasSuffix(".osm.bz2") {
      source = .openStreetMap(url)
      kind = "your OpenStreetMap extract (netconvert)"
    } else if lower.hasSuffix(".pbf") {
      throw AccuracyError(
        "TRAFFIC_ACCURACY_NETWORK=\(setting): SUMO's netconvert reads OpenStreetMap XML, "
          + "not PBF; convert it first (osmium cat FILE.osm.pbf -o FILE.osm)", isUsage: true)
    } else {
      throw AccuracyError(
        "TRAFFIC_ACCURACY_NETWORK=\(setting): not a SUMO network (.net.xml, .net.xml.gz) "
          + "nor an OpenStreetMap extract (.osm, .osm.bz2)", isUsage: true)
    }
    var name = url.lastPathComponent
    for suffix in [".gz", ".bz2", ".xml", ".net", ".osm"] where name.lowercased().hasSuffix(suffix)
    {
      name = String(name.dropLast(suffix.count))
    }
    return [
      AccuracyNetwork(
        name: name.isEmpty ? "network" : name, kind: kind, source: source,
        demand: .randomTrips, peakRate: rate ?? defaultPeakRate)
    ]
  }

  /// TRAFFIC_ACCURACY_PEAK_RATE: vehicles inserted per second at the peak of a usual day.
  private static func peakRate(_ environment: [String: String]) throws -> Double? {
    guard let text = environment["TRAFFIC_ACCURACY_PEAK_RATE"] else { return nil }
    guard let rate = Double(text.trimmingCharacters(in: .whitespaces)), rate.isFinite,
      rate > 0, rate <= 100
    else {
      throw AccuracyError(
        "TRAFFIC_ACCURACY_PEAK_RATE=\(text) is not a number of vehicles per second "
          + "above 0 and at most 100", isUsage: true)
    }
    return rate
  }

  /// The SUMO network file: Debian's, the user's, or one netconvert makes from an
  /// OpenStreetMap extract into `directory` (with SUMO's own type map; signals, ramps and
  /// roundabouts guessed, clusters of junctions joined, as SUMO's documentation advises).
  func sumoNetworkFile(in directory: URL) throws -> URL {
    switch source {
    case .sumo(let file):
      try file.require()
      return file.url
    case .sumoFile(let file):
      // The harness reads the network's lanes as plain XML: a gzipped one is unpacked.
      let handle = try FileHandle(forReadingFrom: file)
      let magic = try handle.read(upToCount: 2)
      try handle.close()
      guard magic == Data([0x1F, 0x8B]) else { return file }
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let net = directory.appendingPathComponent("network.net.xml")
      do {
        let xml = try Gzip.decompress(Data(contentsOf: file), maxOutputBytes: 8 << 30)
        try xml.write(to: net)
      } catch {
        throw AccuracyError("\(file.lastPathComponent): cannot unpack its gzip data: \(error)")
      }
      return net
    case .openStreetMap(let extract):
      try DebianFile.require(.netconvert, .osmTypeMap)
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      var osm = extract
      if extract.lastPathComponent.lowercased().hasSuffix(".bz2") {
        osm = directory.appendingPathComponent("network.osm")
        _ = FileManager.default.createFile(atPath: osm.path, contents: nil)
        let output = try FileHandle(forWritingTo: osm)
        try Bzip2File.decompress(path: extract.path) { bytes in
          output.write(Data(bytes))
          return true
        }
        try output.close()
      }
      let net = directory.appendingPathComponent("network.net.xml")
      let process = Process()
      process.executableURL = DebianFile.netconvert.url
      process.arguments = [
        "--osm-files", osm.path, "--type-files", DebianFile.osmTypeMap.path,
        "--xml-validation", "never", "--keep-edges.by-vclass", "passenger",
        "--remove-edges.isolated", "--geometry.remove", "--ramps.guess", "--junctions.join",
        "--tls.guess-signals", "--tls.discard-simple", "--tls.join", "--roundabouts.guess",
        "--no-warnings", "--output-file", net.path,
      ]
      let errors = Pipe()
      process.standardOutput = FileHandle.nullDevice
      process.standardError = errors
      try process.run()
      let message = errors.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      guard process.terminationStatus == 0 else {
        let first =
          String(decoding: message, as: UTF8.self).split(separator: "\n").first.map {
            ": " + $0
          } ?? ""
        throw AccuracyError(
          "netconvert exited with \(process.terminationStatus) on "
            + "\(extract.lastPathComponent)\(first)")
      }
      return net
    }
  }
}
