import Codec
import Foundation
import Traffic
import TrafficMap

/// The view options `render` and `pick` share.
enum ViewArguments {
  static let options = [
    OptionDefinition("--center", "LAT,LNG", "the view's center"),
    OptionDefinition("--zoom", "Z", "zoom level 0...22"),
    OptionDefinition("--size", "WxH", "pixels (default 800x600)"),
    OptionDefinition("--features", "F,...", "flow, incidents (default both)"),
    OptionDefinition("--flow-mode", "M", "with-free-flow (default) | without-free-flow"),
    OptionDefinition(
      "--network", "FILE", "a road network to draw and compute flow on (.osm, .pbf, .net.xml)"),
  ]

  /// A view with a loaded scene and the features the arguments enable.
  static func view(_ arguments: inout ArgumentList) async throws -> MapView {
    guard let centerText = try arguments.option("--center") else {
      throw UsageError("--center LAT,LNG is required")
    }
    let center = try AreaArgument.coordinates(centerText, option: "--center")
    guard let zoomText = try arguments.option("--zoom") else {
      throw UsageError("--zoom Z is required")
    }
    guard let zoom = AreaArgument.decimal(zoomText), (0...22).contains(zoom) else {
      throw UsageError("--zoom expects 0...22, got '\(zoomText)'")
    }
    var size = Size2D(width: 800, height: 600)
    if let text = try arguments.option("--size") {
      let parts = text.lowercased().split(separator: "x")
      guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
        (1...8192).contains(width), (1...8192).contains(height)
      else { throw UsageError("--size expects WxH within 1...8192, got '\(text)'") }
      size = Size2D(width: Double(width), height: Double(height))
    }
    let featureText = try arguments.option("--features") ?? "flow,incidents"
    let features = featureText.split(separator: ",").map(String.init)
    guard !features.isEmpty, features.allSatisfy({ $0 == "flow" || $0 == "incidents" }) else {
      throw UsageError("--features expects flow and/or incidents, got '\(featureText)'")
    }
    let mode: MapFeatureModes
    switch try arguments.option("--flow-mode") ?? "with-free-flow" {
    case "with-free-flow": mode = .trafficFlowWithFreeFlow
    case "without-free-flow": mode = .trafficFlowWithoutFreeFlow
    case let other:
      throw UsageError("--flow-mode expects with-free-flow or without-free-flow, got '\(other)'")
    }
    let network = try arguments.option("--network").map { file throws(UsageError) in
      try NetworkArguments.load(file)
    }
    let engine = try EngineArguments.open(&arguments, network: network)
    if engine.isRemote, network != nil {
      throw UsageError(
        "give --network or --server, not both: a server's flows are drawn along their own lines")
    }
    let view = try MapView(size: size, engine: engine)
    view.camera.lookAt(point: center, zoom: MapMeasure(kind: .zoomLevel, value: zoom))
    try await view.mapScene.loadScene(mapScheme: .normalDay)
    var enabled: [MapFeatures: MapFeatureModes] = [:]
    if features.contains("flow") { enabled[.trafficFlow] = mode }
    if features.contains("incidents") { enabled[.trafficIncidents] = .defaultMode }
    try view.mapScene.enableFeatures(enabled)
    return view
  }

  /// Fetches a server's traffic for the view (`--server`), before it is drawn or picked; an
  /// embedded engine's view reads its store by itself.
  ///
  /// - Throws: The server's `TrafficQueryError`, which ends the command as it ends
  ///   `traffic incidents --server`: a server that cannot be reached with status 1, a
  ///   request it refuses (4xx) with 64.
  static func fetchTraffic(_ view: MapView) async throws {
    guard view.mapScene.engine?.isRemote == true else { return }
    do {
      try await view.refreshTraffic()
    } catch .trafficQueryFailed(let error) {
      throw error
    }
  }
}

/// `traffic render`: a picture of the map with the traffic layers.
enum RenderCommand: Subcommand {
  static let name = "render"
  static let summary = "Render a map image with flow and incidents to a PNG file"
  static let synopsis = """
    Usage: traffic render --center LAT,LNG --zoom Z [--size WxH] [--features flow,incidents]
                          [--flow-mode with-free-flow|without-free-flow] [--network FILE]
                          [--db PATH | --server URL [--api-key KEY]] -o FILE.png

    With --server the traffic is the server's (traffic serve, or a HERE v7 service), drawn
    without a basemap: a server sends no road network.
    """
  static let options: [OptionDefinition] =
    ViewArguments.options + EngineArguments.options + [
      OptionDefinition("-o", "FILE.png", "where to write the picture (- for standard output)"),
      OptionDefinition("--output", "FILE.png", "the same as -o"),
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    guard let output = try arguments.option("-o") ?? arguments.option("--output") else {
      throw UsageError("-o FILE.png is required")
    }
    try arguments.requireNoPositionals(command: name)
    let view = try await ViewArguments.view(&arguments)
    _ = try arguments.positionals()
    try await ViewArguments.fetchTraffic(view)
    let png = try view.renderImage()
    try FileArguments.write(png, to: output, console: console)
    FileArguments.summary(
      "wrote \(output) (\(Int(view.size.width))x\(Int(view.size.height)), \(png.count) bytes)",
      output: output, console: console)
  }
}

/// `traffic pick`: what a tap on the map hits.
enum PickCommand: Subcommand {
  static let name = "pick"
  static let summary = "The incidents under a point (or rectangle) of a map view"
  static let synopsis = """
    Usage: traffic pick --center LAT,LNG --zoom Z [--size WxH] --at X,Y [--rect W,H]
                        [--features flow,incidents] [--network FILE]
                        [--db PATH | --server URL [--api-key KEY]] [--json]
    """
  static let options: [OptionDefinition] =
    ViewArguments.options + [
      OptionDefinition("--at", "X,Y", "the tap, pixels from the view's top-left corner"),
      OptionDefinition("--rect", "W,H", "a rectangle from X,Y instead of a 1x1 tap"),
    ] + EngineArguments.options + [
      OptionDefinition(flag: "--json", "the picked incidents as JSON")
    ]

  static func run(_ arguments: ArgumentList, console: Console) async throws {
    var arguments = arguments
    guard let at = try arguments.option("--at") else { throw UsageError("--at X,Y is required") }
    let point = try AreaArgument.parseNumbers(at, count: 2, option: "--at")
    var rectangle = Size2D(width: 1, height: 1)
    if let rect = try arguments.option("--rect") {
      let size = try AreaArgument.parseNumbers(rect, count: 2, option: "--rect")
      guard size[0] > 0, size[1] > 0 else { throw UsageError("--rect expects positive W,H") }
      rectangle = Size2D(width: size[0], height: size[1])
    }
    let json = arguments.flag("--json")
    try arguments.requireNoPositionals(command: name)
    let view = try await ViewArguments.view(&arguments)
    _ = try arguments.positionals()
    guard (0...view.size.width).contains(point[0]), (0...view.size.height).contains(point[1]) else {
      throw UsageError(
        "--at \(at) lies outside the \(Int(view.size.width))x\(Int(view.size.height)) image")
    }
    try await ViewArguments.fetchTraffic(view)
    let result = await view.pickMapContent(
      inside: Rectangle2D(origin: Point2D(x: point[0], y: point[1]), size: rectangle))
    if json {
      // Members in name order, as the output has always had them.
      var writer = JSONWriter(capacity: 128 * result.trafficIncidents.count + 32)
      writer.beginObject()
      writer.key("trafficIncidents")
      writer.beginArray()
      for picked in result.trafficIncidents {
        writer.beginObject()
        writer.member("impact", picked.impact.rawValue)
        writer.member("lat", picked.coordinates.latitude)
        writer.member("lng", picked.coordinates.longitude)
        writer.member("originalId", picked.originalId)
        writer.member("type", picked.type.rawValue)
        writer.endObject()
      }
      writer.endArray()
      writer.endObject()
      console.print(String(decoding: writer.bytes, as: UTF8.self))
      return
    }
    console.print(
      result.trafficIncidents.count == 1
        ? "1 incident" : "\(result.trafficIncidents.count) incidents")
    for picked in result.trafficIncidents {
      console.print(
        "[\(picked.type.rawValue), \(IncidentOutput.impactName(picked.impact))] \(picked.originalId) at "
          + "\(picked.coordinates.latitude),\(picked.coordinates.longitude)")
    }
  }
}
