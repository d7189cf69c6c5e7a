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
    let parameters = try FeedPushParameters(rawFormat: rawFormat, query: query)
    let format = parameters.format
    guard !request.body.isEmpty else {
      throw .badRequest("the body is empty; send one \(format) document")
    }
    // A key writes only the sources granted to it; a polled feed's only by name.
    let polled = poller?.sourceNames ?? []
    let outcome = try feeds.push(
      request.body, format: format, options: parameters.options,
      givenSource: parameters.givenSource, isFullRefresh: parameters.isFullRefresh,
      recordingEach: parameters.recordsEach, now: Date()
    ) { source throws(TrafficQueryError) in
      guard scope.mayWrite(source: source, polled: polled.contains(source)) else {
        let name = QueryParameters.excerpt(source)
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
    if parameters.recordsEach {
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
