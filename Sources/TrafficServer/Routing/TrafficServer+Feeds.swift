import Codec
import Foundation
import Traffic
import TrafficFeeds

extension TrafficServer {
  /// `POST /v1/feeds/{format}`: one feed document applied as one batch.
  ///
  /// Query parameters: `source` (the source's name, the format's name by default),
  /// `lang` and `country` (defaults for documents that do not say), `axisOrder`
  /// (`latLon` or `lonLat`, for DATEX II position lists), `fullRefresh`, `records` (list
  /// each record's outcome).
  func feedPush(
    rawFormat: Substring, query: QueryParameters, request: HTTPRequest, scope: APIKeyScope
  ) throws(TrafficQueryError) -> HTTPResponse {
    guard let name = QueryParameters.percentDecoded(rawFormat),
      let format = FeedFormat(rawValue: name)
    else {
      throw .httpError(
        status: 404,
        "feed format \(AreaParameter.excerpt(String(rawFormat))) is unknown; use "
          + FeedFormat.allCases.map(\.rawValue).joined(separator: ", "))
    }
    guard !request.body.isEmpty else {
      throw .badRequest("the body is empty; send one \(format) document")
    }
    let givenSource = try query.single("source", error: TrafficQueryError.invalidParameter)
    if let givenSource,
      givenSource.isEmpty || givenSource.count > 100
        || givenSource.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
    {
      throw .invalidParameter("source must have 1 to 100 characters, none a control character")
    }
    // Without ?source=, the document's own publisher names the source, else the format.
    var options = FeedOptions(sourceName: name, now: Date())
    options.defaultLanguage = try IncidentQueryParameters.language(query)
    if let country = try query.single("country", error: TrafficQueryError.invalidParameter) {
      guard country.count == 2, country.allSatisfy({ $0.isASCII && $0.isLetter }) else {
        throw .invalidParameter(
          "country \"\(AreaParameter.excerpt(country))\" must be an ISO 3166-1 alpha-2 code")
      }
      options.defaultCountryCode = country.uppercased()
    }
    if let order = try query.single("axisOrder", error: TrafficQueryError.invalidParameter) {
      guard let axisOrder = FeedOptions.AxisOrder(rawValue: order) else {
        throw .invalidParameter(
          "axisOrder \"\(AreaParameter.excerpt(order))\" is unknown; use latLon or lonLat")
      }
      options.axisOrder = axisOrder
    }
    let isFullRefresh = try query.boolean("fullRefresh")
    let recordsEach = try query.boolean("records")
    // A key writes only the sources granted to it; a polled feed's only by name.
    let polled = poller?.sourceNames ?? []
    let outcome = try feeds.push(
      request.body, format: format, options: options, givenSource: givenSource,
      isFullRefresh: isFullRefresh, recordingEach: recordsEach, now: Date()
    ) { source throws(TrafficQueryError) in
      guard scope.mayWrite(source: source, polled: polled.contains(source)) else {
        let name = AreaParameter.excerpt(source)
        let reason =
          polled.contains(source)
          ? "source \"\(name)\" is a feed this server polls; only a key granted it by name"
            + " (write:\(name)) may push it"
          : "this key may not write source \"\(name)\""
        throw .httpError(status: 403, "\(reason) (its scopes: \(scope))")
      }
    }
    var writer = JSONWriter(capacity: 512)
    writer.beginObject()
    writer.member("format", format.rawValue)
    writer.member("source", outcome.application.source)
    writer.member("incidents", outcome.application.incidentCount)
    for (name, count) in [
      ("added", outcome.report.added), ("updated", outcome.report.updated),
      ("unchanged", outcome.report.unchanged), ("stale", outcome.report.stale),
      ("merged", outcome.report.merged), ("ended", outcome.report.ended),
    ] {
      writer.key(name)
      writer.integer(count)
    }
    writer.member("fullRefresh", outcome.application.document.isFullRefresh)
    writer.member("publicationTime", outcome.application.document.publicationTime)
    writer.member("problemCount", outcome.application.document.problems.count)
    writer.key("problems")
    writer.beginArray()
    for problem in outcome.application.document.problems.prefix(100) {
      writer.beginObject()
      writer.member("location", problem.location)
      writer.member("reason", problem.reason)
      writer.endObject()
    }
    writer.endArray()
    if recordsEach {
      writer.key("records")
      writer.beginArray()
      for record in outcome.report.records {
        writer.beginObject()
        writer.member("id", record.id)
        writer.member("outcome", record.outcome.rawValue)
        writer.member("incident", record.incident)
        writer.endObject()
      }
      writer.endArray()
    }
    writer.endObject()
    return .uncachedJSON(writer.bytes)
  }

  /// `GET /v1/feeds`: the status of every source that pushed (`feeds`) and of every feed
  /// the server polls (`polled`).
  func feedList() -> HTTPResponse {
    var writer = JSONWriter(capacity: 512)
    writer.beginObject()
    writer.key("feeds")
    writer.beginArray()
    for status in feeds.statusList() {
      writer.beginObject()
      writer.member("format", status.format.rawValue)
      writer.member("source", status.source)
      writer.member("pushes", status.pushes)
      writer.member("lastPushTime", status.lastPushTime)
      writer.member("lastPublicationTime", status.lastPublicationTime)
      writer.member("incidents", status.lastIncidentCount)
      writer.member("problems", status.lastProblemCount)
      writer.member("lastError", status.lastError)
      writer.member("lastErrorTime", status.lastErrorTime)
      writer.endObject()
    }
    writer.endArray()
    writer.key("polled")
    writer.beginArray()
    for status in (poller?.status ?? []) {
      writer.beginObject()
      writer.member("name", status.feed.name)
      writer.member("format", status.feed.format?.rawValue)
      writer.member("url", status.feed.displayURL)
      writer.member("intervalSeconds", status.feed.intervalInSeconds, decimals: 0)
      writer.member("fetches", status.fetches)
      for (name, time) in [
        ("lastFetch", status.lastFetch), ("lastSuccess", status.lastSuccess),
        ("nextFetch", status.nextFetch),
      ] {
        writer.key(name)
        writer.date(time)
      }
      writer.member("consecutiveFailures", status.consecutiveFailures)
      writer.member("incidents", status.incidentCount)
      writer.member("problems", status.problemCount)
      writer.member("lastError", status.lastError)
      writer.endObject()
    }
    writer.endArray()
    writer.endObject()
    return .uncachedJSON(writer.bytes)
  }
}
