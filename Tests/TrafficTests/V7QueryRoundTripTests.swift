import Codec
import Foundation
import Testing
import TrafficTestSupport

@testable import Traffic

/// Generated values of the v7 query codecs, for round trips.
enum V7QueryValues {
  static func point(_ latitude: Double, _ longitude: Double) throws -> GeoCoordinates {
    try GeoCoordinates(latitude: latitude, longitude: longitude)
  }

  /// A coordinate on the 10⁻⁶° grid a corridor's polyline is written at.
  static func gridPoint(using generator: inout SeededGenerator) throws -> GeoCoordinates {
    try point(
      Double(Int.random(in: -90_000_000...90_000_000, using: &generator)) / 1_000_000,
      Double(Int.random(in: -180_000_000...180_000_000, using: &generator)) / 1_000_000)
  }

  /// Areas of every kind: edge values first, then random ones.
  static func areas(count: Int = 60, seed: UInt64 = 1) throws -> [any GeoArea] {
    var generator = SeededGenerator(seed: seed)
    var areas: [any GeoArea] = [
      try GeoCircle(center: point(90, 180), radiusInMeters: 0),
      try GeoCircle(center: point(-90, -180), radiusInMeters: 50_000),
      try GeoCircle(center: point(-0.0, 0), radiusInMeters: 5e-324),
      try GeoCircle(center: point(1e-300, -1e-7), radiusInMeters: 1e300),
      try GeoCircle(center: point(52.123456789012345, 13.987654321098765), radiusInMeters: 0.1),
      try GeoBox(west: 179.5, south: -16.5, east: -179.8, north: -16),
      try GeoBox(west: -180, south: -90, east: 180, north: 90),
      try GeoBox(west: 13, south: 52, east: 13, north: 52),
      try GeoBox(west: -1e-9, south: 1e-20, east: 2.5e-7, north: 0.3),
      try GeoCorridor(polyline: [point(0, 0), point(0, 0.000001)], halfWidthInMeters: 0),
      try GeoCorridor(polyline: [point(90, 180), point(-90, -180)], halfWidthInMeters: 5_000),
      try GeoCorridor(
        polyline: [point(-16.5, 179.999999), point(-16.4, -179.999999), point(-16.3, 179.5)],
        halfWidthInMeters: 1e-3),
      try GeoCorridor(
        polyline: (0..<300).map { try point(47 + Double($0) / 1_000, 9) }, halfWidthInMeters: 30),
    ]
    for index in 0..<count {
      switch index % 3 {
      case 0:
        areas.append(
          try GeoCircle(
            center: point(
              Double.random(in: -90...90, using: &generator),
              Double.random(in: -180...180, using: &generator)),
            radiusInMeters: Double.random(in: 0...100_000, using: &generator)))
      case 1:
        let south = Double.random(in: -90...90, using: &generator)
        areas.append(
          try GeoBox(
            west: Double.random(in: -180...180, using: &generator), south: south,
            east: Double.random(in: -180...180, using: &generator),
            north: Double.random(in: south...90, using: &generator)))
      default:
        let count = Int.random(in: 2...20, using: &generator)
        areas.append(
          try GeoCorridor(
            polyline: (0..<count).map { _ in try gridPoint(using: &generator) },
            halfWidthInMeters: Double.random(in: 0...5_000, using: &generator)))
      }
    }
    return areas
  }

  static let languages: [LanguageCode?] = [
    nil, .deDE, .enUS, .frFR, try? LanguageCode("zh-Hans-CN"), try? LanguageCode("de"),
  ]

  /// A date of whole seconds, or with a fraction written exactly in milliseconds.
  static func date(using generator: inout SeededGenerator) -> Date {
    let fractions = [0, 0.5, 0.25, 0.125, 0.875]
    return Date(
      timeIntervalSince1970: Double(
        Int.random(in: -1_000_000_000...4_000_000_000, using: &generator))
        + fractions[Int.random(in: 0..<fractions.count, using: &generator)])
  }

  /// Some elements of `all` in a random order, repeats allowed.
  static func some<T>(_ all: [T], using generator: inout SeededGenerator) -> [T] {
    (0..<Int.random(in: 0...all.count + 1, using: &generator)).map { _ in
      all[Int.random(in: 0..<all.count, using: &generator)]
    }
  }

  static let references: [V7IncidentWire.LocationReferencing] = [
    [], .shape, .openLR, .tmc, [.shape, .openLR], [.openLR, .tmc], .all,
  ]

  static func incidentQueries(seed: UInt64 = 2) throws -> [V7IncidentQuery] {
    var generator = SeededGenerator(seed: seed)
    return try areas(seed: seed).enumerated().map { index, area in
      var options = TrafficIncidentsQueryOptions()
      options.typeFilter = some(
        TrafficIncidentType.allCases.filter { $0 != .unknown }, using: &generator)
      options.impactFilter = some(
        TrafficIncidentImpact.allCases.filter { $0 != .unknown }, using: &generator)
      options.languageCode = languages[index % languages.count]
      if index % 3 != 0 { options.earliestStartTime = date(using: &generator) }
      if index % 4 != 0 {
        let end = date(using: &generator)
        options.latestEndTime = options.earliestStartTime.map { max($0, end) } ?? end
      }
      if index % 2 == 0 { options.sortOrigin = try gridPoint(using: &generator) }
      if index % 5 == 1 { options.sortOrigin = try point(-90, 180) }
      if index % 3 == 1 { options.limit = [1, 7, 10_000, .max][index % 4] }
      return V7IncidentQuery(
        area: area, options: options, locationReferencing: references[index % references.count])
    }
  }

  static func flowQueries(seed: UInt64 = 3) throws -> [V7FlowQuery] {
    var generator = SeededGenerator(seed: seed)
    return try areas(seed: seed).enumerated().map { index, area in
      var options = TrafficFlowQueryOptions()
      let low = [0, 10, Double.random(in: 0...10, using: &generator)][index % 3]
      if index % 2 == 0 { options.minJamFactor = low }
      if index % 3 != 2 { options.maxJamFactor = Double.random(in: low...10, using: &generator) }
      if index % 4 == 1 { options.at = date(using: &generator) }
      options.functionalClasses = Set(some(Array(1...5), using: &generator))
      return V7FlowQuery(area: area, options: options, includeShape: index % 3 != 0)
    }
  }
}

@Suite struct V7QueryRoundTripTests {
  typealias Values = V7QueryValues

  /// The parameters as the server reads them from the URL the remote engine sends.
  static func sent(_ parameters: [(String, String)]) throws -> QueryParameters {
    let client = RemoteTrafficClient(
      baseURL: try #require(URL(string: "http://127.0.0.1:9/base/")), apiKey: "a+b",
      timeoutInSeconds: 1)
    let url = try client.url(path: "/v7/incidents", parameters: parameters)
    let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
    return try QueryParameters.parse(try #require(components.percentEncodedQuery)[...])
  }

  @Test func areasReadBackEqual() throws {
    for area in try Values.areas() {
      let text = try V7AreaQuery.encode(area)
      let decoded = try V7AreaQuery.decode(text, limits: .unlimited)
      #expect(V7AreaQuery.same(decoded, area), "\(text)")
      #expect(try V7AreaQuery.encode(decoded) == text)
      // The JSON form of a POST body reads back to the same area too.
      var writer = JSONWriter()
      try V7AreaQuery.encodeJSON(area, to: &writer)
      guard case .object(let members) = try JSONParser.parse(Data(writer.bytes)) else {
        Issue.record("not an object: \(String(decoding: writer.bytes, as: UTF8.self))")
        continue
      }
      let fromJSON = try V7AreaQuery.decode(
        try V7AreaQuery.text(fromJSON: members), limits: .unlimited)
      #expect(V7AreaQuery.same(fromJSON, area), "\(String(decoding: writer.bytes, as: UTF8.self))")
    }
  }

  @Test func areasWithinHEREsLimitsPassThem() throws {
    let inside = try Values.areas().filter { (try? TrafficQueryLimits.here.check($0)) != nil }
    #expect(inside.count > 10)
    for area in inside {
      let decoded = try V7AreaQuery.decode(try V7AreaQuery.encode(area), limits: .here)
      #expect(V7AreaQuery.same(decoded, area))
    }
  }

  @Test func theTextFormIsFixed() throws {
    let circle = try GeoCircle(center: Values.point(52.5, 13.4), radiusInMeters: 500)
    #expect(try V7AreaQuery.encode(circle) == "circle:52.5,13.4;r=500.0")
    let box = try GeoBox(west: 13, south: 52, east: 13.5, north: 52.25)
    #expect(try V7AreaQuery.encode(box) == "bbox:13.0,52.0,13.5,52.25")
    var writer = JSONWriter()
    try V7AreaQuery.encodeJSON(circle, to: &writer)
    #expect(
      String(decoding: writer.bytes, as: UTF8.self)
        == #"{"type":"circle","center":{"lat":52.5,"lng":13.4},"radius":500}"#)
    let corridor = try GeoCorridor(
      polyline: [Values.point(52.5, 13.4), Values.point(52.51, 13.41)], halfWidthInMeters: 20)
    let text = try V7AreaQuery.encode(corridor)
    #expect(text.hasPrefix("corridor:") && text.hasSuffix(";r=20.0"))
  }

  @Test func incidentQueriesReadBackEqual() throws {
    let queries = try Values.incidentQueries()
    #expect(queries.count > 60)
    for query in queries {
      let parameters = try query.encode()
      let decoded = try V7IncidentQuery(QueryParameters(parameters), limits: .unlimited)
      #expect(decoded == query, "\(parameters)")
      #expect(
        try decoded.encode().map { "\($0.0)=\($0.1)" } == parameters.map { "\($0.0)=\($0.1)" })
      // Through the URL the remote engine sends (percent-encoded, with its key).
      #expect(try V7IncidentQuery(Self.sent(parameters), limits: .unlimited) == query)
    }
  }

  @Test func incidentQueriesWriteHEREsParameters() throws {
    var options = TrafficIncidentsQueryOptions(
      typeFilter: [.accident, .unknown, .roadClosure], impactFilter: [.critical, .unknown],
      earliestStartTime: Date(timeIntervalSince1970: 1_800_000_000),
      latestEndTime: Date(timeIntervalSince1970: 1_800_000_000.5), languageCode: .deDE,
      limit: 3)
    options.sortOrigin = try Values.point(52.5, 13.25)
    let query = V7IncidentQuery(
      area: try GeoBox(west: 13, south: 52, east: 13.5, north: 52.5), options: options)
    let written = try query.encode().map { "\($0.0)=\($0.1)" }
    #expect(
      written == [
        "in=bbox:13.0,52.0,13.5,52.5", "locationReferencing=shape", "lang=de-DE",
        "type=accident,roadClosure", "criticality=critical",
        "earliestStartTime=2027-01-15T08:00:00Z", "latestEndTime=2027-01-15T08:00:00.500Z",
        "sort=distance", "from=52.5,13.25", "limit=3",
      ])
    // The unknown type and impact have no v7 name: they are what does not read back.
    var expected = query
    expected.options.typeFilter = [.accident, .roadClosure]
    expected.options.impactFilter = [.critical]
    #expect(try V7IncidentQuery(QueryParameters(query.encode()), limits: .here) == expected)
    #expect(V7IncidentQuery.encode([]) == "none")
    #expect(V7IncidentQuery.encode(.all) == "shape,olr,tmc")
  }

  @Test func lookupAndStreamQueriesReadBackEqual() throws {
    for (index, language) in Values.languages.enumerated() {
      for references in Values.references {
        let lookup = V7IncidentLookupQuery(
          options: TrafficIncidentLookupOptions(languageCode: language),
          locationReferencing: references)
        #expect(try V7IncidentLookupQuery(QueryParameters(lookup.encode())) == lookup)
        #expect(try V7IncidentLookupQuery(Self.sent(lookup.encode())) == lookup)
      }
      for area in try Values.areas(count: 9, seed: UInt64(index)) {
        let stream = V7IncidentStreamQuery(area: area, language: language)
        #expect(try V7IncidentStreamQuery(QueryParameters(stream.encode())) == stream)
        #expect(try V7IncidentStreamQuery(Self.sent(stream.encode())) == stream)
      }
    }
    // What the remote engine has always sent: the language alone.
    #expect(V7IncidentLookupQuery().encode().isEmpty)
    let german = V7IncidentLookupQuery(options: TrafficIncidentLookupOptions(languageCode: .deDE))
    #expect(german.encode().map { "\($0.0)=\($0.1)" } == ["lang=de-DE"])
  }

  @Test func flowQueriesReadBackEqual() throws {
    let queries = try Values.flowQueries()
    #expect(queries.count > 60)
    for query in queries {
      let parameters = try query.encode()
      let decoded = try V7FlowQuery(QueryParameters(parameters), limits: .unlimited)
      #expect(decoded == query, "\(parameters)")
      #expect(
        try decoded.encode().map { "\($0.0)=\($0.1)" } == parameters.map { "\($0.0)=\($0.1)" })
      #expect(try V7FlowQuery(Self.sent(parameters), limits: .unlimited) == query)
    }
    let query = V7FlowQuery(
      area: try GeoCircle(center: Values.point(52, 13), radiusInMeters: 100),
      options: TrafficFlowQueryOptions(
        minJamFactor: 2, maxJamFactor: 9.5, functionalClasses: [3, 1],
        at: Date(timeIntervalSince1970: 1_800_000_000)))
    #expect(
      try query.encode().map { "\($0.0)=\($0.1)" } == [
        "in=circle:52.0,13.0;r=100.0", "locationReferencing=shape", "minJamFactor=2.0",
        "maxJamFactor=9.5", "at=2027-01-15T08:00:00Z", "functionalClasses=1,3",
      ])
  }

  @Test func decodersReportTheServersErrors() throws {
    func error(_ pairs: [(String, String)], flow: Bool = false) -> TrafficQueryError? {
      do {
        let parameters = QueryParameters(pairs.map { (name: $0.0, value: $0.1) })
        if flow {
          _ = try V7FlowQuery(parameters, limits: .here)
        } else {
          _ = try V7IncidentQuery(parameters, limits: .here)
        }
        return nil
      } catch {
        return error
      }
    }
    let circle = ("in", "circle:52.5,13.4;r=500")
    #expect(
      error([])
        == .invalidIn(
          "parameter in is missing; give circle:LAT,LNG;r=M, bbox:W,S,E,N or corridor:POLYLINE;r=M"
        ))
    #expect(
      error([circle, ("locationReferencing", "tmc")], flow: true)
        == .invalidParameter("locationReferencing tmc is not supported for flow; use shape or none")
    )
    #expect(
      error([circle, ("units", "imperial")])
        == .invalidParameter("units imperial is not supported; lengths are in meters (metric)"))
    #expect(
      error([
        circle, ("earliestStartTime", "2028-02-20T12:00:00Z"),
        ("latestEndTime", "2028-02-20T11:00:00Z"),
      ])
        == .invalidFilterOptions("latestEndTime lies before earliestStartTime"))
    #expect(
      error([circle, ("minJamFactor", "5"), ("maxJamFactor", "4")], flow: true)
        == .invalidFilterOptions("minJamFactor 5.0 is greater than maxJamFactor 4.0"))
    #expect(
      error([circle, ("sort", "distance")]) == .invalidParameter("sort=distance needs from=LAT,LNG")
    )
    #expect(
      error([circle, ("limit", "0")])
        == .invalidParameter("limit \"0\" must be a whole number >= 1"))
    #expect(
      error([circle, ("limit", "99999999999999999999999")])
        == .invalidParameter(
          "limit \"99999999999999999999999\" must be a whole number >= 1 and at most \(Int.max)"))
    #expect(
      error([("in", "circle:52.5,13.4;r=50001")])
        == .invalidGeometry("in: circle radius 50001.0 m exceeds the limit of 50000.0 m"))
  }
}
