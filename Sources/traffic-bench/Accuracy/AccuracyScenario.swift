import Codec
import Foundation
import Roads
import Traffic
import TrafficFeeds
import TrafficTestSupport
import Zlib

/// Writes a day's trips, runs SUMO and reads its outputs.
struct AccuracySimulator {
  let network: AccuracyNetwork
  /// The SUMO network file.
  let file: URL
  let roads: RoadNetwork
  /// The edges with an induction loop on each lane (SUMO E1 detectors, read every minute):
  /// the main roads (motorway, trunk and primary) of 60 m or more, at 40 % of their length,
  /// at most every seventh of the network's edges.
  let loopEdges: [(id: String, lanes: Int, position: Double)]
  /// The origin-destination pairs of `.routeFiles` demand.
  private let pairs: [(String, String)]
  /// The car edges random trips start and end on, with cumulative lengths.
  private let edges: [(id: String, middle: GeoCoordinates)]
  private let cumulative: [Double]

  /// Traffic lights whose programs never give some of their links green (SUMO warns "Missing
  /// green phase"): switched off, so that the junction's priority rules apply instead of a
  /// wait that only teleporting ends (Braunschweig's and A10KW's networks have such lights).
  private let brokenTrafficLights: [String]

  init(network: AccuracyNetwork, file: URL, roads: RoadNetwork) throws {
    self.network = network
    self.file = file
    self.roads = roads
    try DebianFile.require(.sumo)
    let check = Process()
    check.executableURL = DebianFile.sumo.url
    check.arguments = [
      "-n", file.path, "--end", "0", "--xml-validation", "never", "--no-step-log",
    ]
    let output = Pipe()
    check.standardOutput = FileHandle.nullDevice
    check.standardError = output
    try check.run()
    let warnings = String(
      decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    check.waitUntilExit()
    var broken = Set<String>()
    let marker = "Missing green phase in tlLogic '"
    for line in warnings.split(separator: "\n") {
      guard let range = line.range(of: marker) else { continue }
      if let id = line[range.upperBound...].split(separator: "'").first {
        broken.insert(String(id))
      }
    }
    brokenTrafficLights = broken.sorted()
    var candidates: [(id: String, middle: GeoCoordinates)] = []
    var cumulative: [Double] = []
    var total = 0.0
    for segment in roads.segments where segment.isOpenToCars && segment.lengthInMeters >= 20 {
      total += segment.lengthInMeters
      cumulative.append(total)
      let vertices = segment.geometry.vertices
      candidates.append((segment.sourceID, vertices[vertices.count / 2]))
    }
    edges = candidates
    self.cumulative = cumulative
    var pairs: [(String, String)] = []
    if case .routeFiles(let files) = network.demand {
      var seen = Set<String>()
      for file in files {
        let text = try String(contentsOf: file.url, encoding: .utf8)
        for line in text.split(separator: "\n") where line.contains("<route ") {
          guard let edges = AccuracySimulator.attribute("edges", in: line) else { continue }
          let list = edges.split(separator: " ")
          guard let first = list.first, let last = list.last, first != last,
            seen.insert("\(first) \(last)").inserted
          else { continue }
          pairs.append((String(first), String(last)))
        }
      }
      guard !pairs.isEmpty else {
        throw AccuracyError("no routes in \(files.map(\.path).joined(separator: ", "))")
      }
    }
    self.pairs = pairs
    let main: Set<RoadClass> = [.motorway, .trunk, .primary]
    loopEdges = Array(
      roads.segments.filter { main.contains($0.roadClass) && $0.lengthInMeters >= 60 }
        .sorted { ($0.lengthInMeters, $0.sourceID) > ($1.lengthInMeters, $1.sourceID) }
        .prefix(max(1, roads.segments.count / 7))
        .map { ($0.sourceID, $0.laneCount ?? 1, ($0.lengthInMeters * 0.4).rounded()) })
  }

  /// The value of `name="..."` in one line of XML.
  static func attribute(_ name: String, in line: Substring) -> String? {
    guard let start = line.range(of: " \(name)=\"") else { return nil }
    let rest = line[start.upperBound...]
    guard let end = rest.firstIndex(of: "\"") else { return nil }
    return String(rest[..<end])
  }

  /// The day's trips as SUMO trip XML: departures by a Poisson process whose rate follows
  /// the profile, origins and destinations as the network's demand says.
  func trips(for day: AccuracyDay) -> String {
    var generator = SeededGenerator(seed: day.seed)
    let peak = network.peakRate * day.level
    var second = 0.0
    // Every vehicle is a passenger car; the type says which probe fleets it belongs to
    // (SUMO gives those an FCD device and writes each fleet's own edge data).
    var lines = ["<routes>"]
    for rate in AccuracyHarness.rates {
      lines.append(
        "<vType id=\"p\(rate)\" vClass=\"passenger\">"
          + "<param key=\"has.fcd.device\" value=\"true\"/></vType>")
    }
    lines.append("<vType id=\"car\" vClass=\"passenger\"/>")
    var count = 0
    while true {
      second += -log(Double.random(in: Double.ulpOfOne..<1, using: &generator)) / peak
      guard second < AccuracyProfile.demandSeconds else { break }
      guard Double.random(in: 0..<1, using: &generator) < AccuracyProfile.share(at: second)
      else { continue }
      let (from, to): (String, String)
      if pairs.isEmpty {
        guard let pair = randomPair(&generator) else { continue }
        (from, to) = pair
      } else {
        (from, to) = pairs[Int.random(in: 0..<pairs.count, using: &generator)]
      }
      let id = "v\(count)"
      let fleet = AccuracyHarness.rates.first { AccuracyHarness.reports(id, rate: $0) }
      lines.append(
        "<trip id=\"\(id)\" type=\"\(fleet.map { "p\($0)" } ?? "car")\" depart=\"\(String(format: "%.2f", second))\" from=\""
          + "\(Self.escaped(from))\" to=\"\(Self.escaped(to))\" departLane=\"best\""
          + " departSpeed=\"max\"/>")
      count += 1
    }
    lines.append("</routes>")
    return lines.joined(separator: "\n") + "\n"
  }

  private func randomEdge(_ generator: inout SeededGenerator) -> Int {
    let target = Double.random(in: 0..<(cumulative.last ?? 1), using: &generator)
    var low = 0, high = cumulative.count - 1
    while low < high {
      let middle = (low + high) / 2
      if cumulative[middle] > target { high = middle } else { low = middle + 1 }
    }
    return low
  }

  private func randomPair(_ generator: inout SeededGenerator) -> (String, String)? {
    let from = randomEdge(&generator)
    for _ in 0..<20 {
      let to = randomEdge(&generator)
      if edges[from].middle.distance(to: edges[to].middle) >= 500 {
        return (edges[from].id, edges[to].id)
      }
    }
    return nil
  }

  static func escaped(_ text: String) -> String {
    text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
      .replacingOccurrences(of: "<", with: "&lt;")
  }

  /// Runs SUMO for the day in a scratch folder and reads what it wrote. With `routes`
  /// (vehicle id -> SUMO edges, possibly none), the test drives' run: those vehicles follow
  /// the routes given, without rerouting, everything else as on the day; no floating-car
  /// data, fleets' edge data or loops are written.
  func simulate(_ day: AccuracyDay, routes: [String: [String]]? = nil) throws -> SimulatedDay {
    let drives = routes != nil
    try DebianFile.require(.sumo, .duarouter)
    // TRAFFIC_ACCURACY_SCRATCH keeps SUMO's files of every day there, for a closer look.
    let kept = ProcessInfo.processInfo.environment["TRAFFIC_ACCURACY_SCRATCH"]
    let directory =
      kept.map {
        URL(fileURLWithPath: $0).appendingPathComponent(
          "\(network.name)-\(day.label)\(drives ? "-drives-\(UUID().uuidString)" : "")"
            .replacingOccurrences(of: " ", with: "-"))
      }
      ?? FileManager.default.temporaryDirectory
      .appendingPathComponent("traffic-accuracy-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { if kept == nil { try? FileManager.default.removeItem(at: directory) } }
    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }
    try Data(trips(for: day).utf8).write(to: file("drawn.xml"))
    // Only the trips SUMO's router finds a route for: SUMO would insert the others anyway and
    // leave them stuck where they start until it teleports them.
    let router = Process()
    router.executableURL = DebianFile.duarouter.url
    router.arguments = [
      "-n", self.file.path, "-r", file("drawn.xml").path, "-o", file("trips.xml").path,
      "--ignore-errors", "true", "--write-trips", "true", "--no-step-log", "--no-warnings",
      "--xml-validation", "never",
    ]
    router.standardOutput = FileHandle.nullDevice
    router.standardError = FileHandle.nullDevice
    try router.run()
    router.waitUntilExit()
    guard router.terminationStatus == 0 else {
      throw AccuracyError("duarouter exited with \(router.terminationStatus) on \(network.name)")
    }
    if let routes { try Self.give(routes, in: file("trips.xml")) }
    var additional = "<additional>\n"
    additional +=
      "<edgeData id=\"edges\" freq=\"\(Int(AccuracyProfile.intervalSeconds))\""
      + " file=\"\(file("edges.xml").path)\" excludeEmpty=\"true\"/>\n"
    // Each probe fleet's own edge data: what its vehicles alone drove, by SUMO's definition.
    for (k, rate) in AccuracyHarness.rates.enumerated() where !drives {
      let types = AccuracyHarness.rates[...k].map { "p\($0)" }.joined(separator: " ")
      additional +=
        "<edgeData id=\"fleet\(rate)\" vTypes=\"\(types)\""
        + " freq=\"\(Int(AccuracyProfile.intervalSeconds))\""
        + " file=\"\(file("fleet\(rate).xml").path)\" excludeEmpty=\"true\"/>\n"
    }
    for (k, loop) in loopEdges.enumerated() where !drives {
      for lane in 0..<loop.lanes {
        additional +=
          "<inductionLoop id=\"L\(k)_\(lane)\" lane=\"\(Self.escaped(loop.id))_\(lane)\""
          + " pos=\"\(loop.position)\" period=\"60\" file=\"\(file("loops.xml").path)\"/>\n"
      }
    }
    for id in brokenTrafficLights {
      additional +=
        "<tlLogic id=\"\(Self.escaped(id))\" programID=\"off\" type=\"static\" offset=\"0\"/>\n"
    }
    if let closure = day.closure {
      additional +=
        "<rerouter id=\"closure\" edges=\"\(Self.escaped(closure.edge))\">"
        + "<interval begin=\"\(closure.from)\" end=\"\(closure.until)\">"
        + "<closingLaneReroute id=\"\(Self.escaped(closure.edge))_\(closure.lane)\"/>"
        + "</interval></rerouter>\n"
    }
    additional += "</additional>\n"
    try Data(additional.utf8).write(to: file("additional.xml"))
    let process = Process()
    process.executableURL = DebianFile.sumo.url
    process.currentDirectoryURL = directory
    process.arguments = [
      "-n", self.file.path, "-r", file("trips.xml").path, "-a", file("additional.xml").path,
      "--begin", "0", "--end",
      "\(Int(AccuracyProfile.demandSeconds + AccuracyProfile.drainSeconds))",
      "--seed", "\(day.seed % 1_000_000)", "--no-step-log", "--xml-validation", "never",
      "--ignore-route-errors", "true", "--ignore-junction-blocker", "20",
      "--device.rerouting.probability", "1", "--device.rerouting.period", "120",
      "--error-log", file("warnings.txt").path,
      "--tripinfo-output", file("tripinfo.xml").path,
      "--vehroute-output", file("vehroutes.xml").path, "--vehroute-output.exit-times", "true",
      "--device.fcd.probability", "0", "--device.fcd.period", "5",
    ]
    if !drives {
      process.arguments? += ["--fcd-output", file("fcd.xml").path, "--fcd-output.geo", "true"]
    }
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    let started = Date()
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      let log = (try? String(contentsOf: file("warnings.txt"), encoding: .utf8)) ?? ""
      throw AccuracyError(
        "sumo exited with \(process.terminationStatus) on \(network.name), \(day.label): "
          + (log.split(separator: "\n").last { $0.hasPrefix("Error") }.map(String.init) ?? ""))
    }
    let sumoSeconds = Date().timeIntervalSince(started)

    let teleported = SUMOVehicles.teleported(
      inWarnings: (try? String(contentsOf: file("warnings.txt"), encoding: .utf8)) ?? "")

    // Floating-car data.
    var vehicleIndex: [String: Int32] = [:]
    var vehicleNames: [String] = []
    var edgeIndex: [String: Int32] = [:]
    var edgeNames: [String] = []
    var records: [SimulatedDay.Record] = []
    let fcd = drives ? Data() : try Data(contentsOf: file("fcd.xml"), options: .alwaysMapped)
    var second = 0.0
    try fcd.withUnsafeBytes { bytes in
      try FCDReader.read(bytes) { element in
        switch element {
        case .timestep(let seconds, _):
          second = seconds ?? second
        case .mover(_, let attributes, _):
          guard let id = attributes["id"], let x = attributes["x"].flatMap(Double.init),
            let y = attributes["y"].flatMap(Double.init)
          else { return }
          let vehicle: Int32
          if let known = vehicleIndex[id] {
            vehicle = known
          } else {
            vehicle = Int32(vehicleNames.count)
            vehicleIndex[id] = vehicle
            vehicleNames.append(id)
          }
          var edge: Int32 = -1
          if let lane = attributes["lane"], !lane.hasPrefix(":"),
            let cut = lane.lastIndex(of: "_")
          {
            let name = String(lane[..<cut])
            if let known = edgeIndex[name] {
              edge = known
            } else {
              edge = Int32(edgeNames.count)
              edgeIndex[name] = edge
              edgeNames.append(name)
            }
          }
          records.append(
            SimulatedDay.Record(
              vehicle: vehicle, edge: edge, second: Float(second), latitude: y, longitude: x,
              speed: Float(attributes["speed"].flatMap(Double.init) ?? 0),
              angle: Float(attributes["angle"].flatMap(Double.init) ?? 0)))
        }
      }
    }

    let edgeData = try Self.edgeData(file("edges.xml"))
    var fleetEdgeData: [Int: [[String: SimulatedDay.EdgeInterval]]] = [:]
    for rate in AccuracyHarness.rates where !drives {
      fleetEdgeData[rate] = try Self.edgeData(file("fleet\(rate).xml"))
    }

    // Trips: each vehicle's route with its exit times.
    var trips: [SimulatedDay.Trip] = []
    let routesXML = try Data(contentsOf: file("vehroutes.xml"))
    try routesXML.withUnsafeBytes { bytes in
      var current: SimulatedDay.Trip?
      func finish() {
        if let trip = current, !trip.edges.isEmpty, trip.edges.count == trip.exitTimes.count {
          trips.append(trip)
        }
        current = nil
      }
      try GuardedXMLReader.scanTags(bytes) { tag in
        if tag.name == "vehicle" {
          finish()
          guard let id = tag.attributes["id"],
            let depart = tag.attributes["depart"].flatMap(Double.init),
            let arrival = tag.attributes["arrival"].flatMap(Double.init)
          else { return }
          current = SimulatedDay.Trip(
            vehicle: id, depart: depart, arrival: arrival, edges: [], exitTimes: [],
            teleported: teleported.contains(id))
        } else if tag.name == "route", let exits = tag.attributes["exitTimes"],
          let edges = tag.attributes["edges"]
        {
          current?.edges = edges.split(separator: " ").map(String.init)
          current?.exitTimes = exits.split(separator: " ").compactMap { Double($0) }
        }
      }
      finish()
    }
    // The loops' minutes, the lanes of an edge together (speeds weighted by vehicles).
    var readings: [String: (edge: String, end: Double, sum: Double, vehicles: Int)] = [:]
    if !loopEdges.isEmpty, !drives {
      let loopsXML = try Data(contentsOf: file("loops.xml"))
      try loopsXML.withUnsafeBytes { bytes in
        try GuardedXMLReader.scanTags(bytes) { tag in
          guard tag.name == "interval", let id = tag.attributes["id"], id.hasPrefix("L"),
            let index = id.dropFirst().split(separator: "_").first.flatMap({ Int($0) }),
            loopEdges.indices.contains(index),
            let end = tag.attributes["end"].flatMap(Double.init),
            let count = tag.attributes["nVehContrib"].flatMap(Int.init), count > 0,
            let speed = tag.attributes["speed"].flatMap(Double.init), speed >= 0
          else { return }
          let key = "\(index)@\(end)"
          var reading = readings[key] ?? (loopEdges[index].id, end, 0, 0)
          reading.sum += speed * Double(count)
          reading.vehicles += count
          readings[key] = reading
        }
      }
    }
    let loopReadings = readings.values.map {
      (edge: $0.edge, end: $0.end, speed: $0.sum / Double($0.vehicles), vehicles: $0.vehicles)
    }.sorted { ($0.end, $0.edge) < ($1.end, $1.edge) }
    return SimulatedDay(
      day: day, vehicleNames: vehicleNames, edgeNames: edgeNames, records: records,
      edgeData: edgeData, fleetEdgeData: fleetEdgeData, trips: trips,
      teleports: teleported.count, loopReadings: loopReadings, sumoSeconds: sumoSeconds)
  }

  /// Rewrites SUMO's trips file so that each vehicle of `routes` follows its route (a
  /// `vehicle` with the trip's departure, of a type without the rerouting device).
  static func give(_ routes: [String: [String]], in url: URL) throws {
    let text = try String(contentsOf: url, encoding: .utf8)
    var lines: [String] = []
    var given = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      let trimmed = line.drop { $0 == " " }
      if trimmed.hasPrefix("<routes") {
        lines.append(String(line))
        lines.append(
          "<vType id=\"driven\" vClass=\"passenger\">"
            + "<param key=\"has.rerouting.device\" value=\"false\"/></vType>")
        continue
      }
      guard trimmed.hasPrefix("<trip "), let id = attribute("id", in: trimmed),
        let route = routes[id], let depart = attribute("depart", in: trimmed)
      else {
        lines.append(String(line))
        continue
      }
      let edges = route.map(escaped).joined(separator: " ")
      lines.append(
        "<vehicle id=\"\(escaped(id))\" type=\"driven\" depart=\"\(depart)\" departLane=\"best\""
          + " departSpeed=\"max\"><route edges=\"\(edges)\"/></vehicle>")
      given += 1
    }
    guard given == routes.count else {
      throw AccuracyError("\(routes.count - given) test drives name no trip of the day")
    }
    try Data(lines.joined(separator: "\n").utf8).write(to: url)
  }

  /// SUMO's edge data per interval: edge id -> its values.
  static func edgeData(_ url: URL) throws -> [[String: SimulatedDay.EdgeInterval]] {
    var edgeData: [[String: SimulatedDay.EdgeInterval]] = []
    var interval = -1
    let xml = try Data(contentsOf: url)
    try xml.withUnsafeBytes { bytes in
      try GuardedXMLReader.scanTags(bytes) { tag in
        if tag.name == "interval" {
          let begin = tag.attributes["begin"].flatMap(Double.init) ?? 0
          interval = Int((begin / AccuracyProfile.intervalSeconds).rounded())
          while edgeData.count <= interval { edgeData.append([:]) }
        } else if tag.name == "edge", interval >= 0, let id = tag.attributes["id"],
          let speed = tag.attributes["speed"].flatMap(Double.init)
        {
          edgeData[interval][id] = SimulatedDay.EdgeInterval(
            speed: speed, traveltime: tag.attributes["traveltime"].flatMap(Double.init),
            entered: tag.attributes["entered"].flatMap(Int.init) ?? 0)
        }
      }
    }
    return edgeData
  }
}

/// A failure of the accuracy harness, in words.
struct AccuracyError: Error, CustomStringConvertible {
  var description: String
  /// A setting of the user's is wrong (exit 64), not a run that failed.
  var isUsage = false
  init(_ description: String, isUsage: Bool = false) {
    self.description = description
    self.isUsage = isUsage
  }
}
