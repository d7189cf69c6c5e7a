import Codec
import Foundation
import Geo
import Traffic
import TrafficBuildInfo
import TrafficFeeds

/// `/metrics`: the Prometheus text of the server, its feeds and the engine.
extension TrafficServer {
  /// `GET /metrics` in the Prometheus text format.
  func metricsPage() -> HTTPResponse {
    var text = "# HELP traffic_build_info The build that serves: version and git revision.\n"
    text += "# TYPE traffic_build_info gauge\n"
    text +=
      "traffic_build_info{version=\(ServerMetrics.label(BuildInfo.version)),"
      + "revision=\(ServerMetrics.label(BuildInfo.revision))} 1\n"
    text += metrics.exposition()
    text += connections.exposition()
    text +=
      "# HELP traffic_event_streams_refused_total Event streams refused: the client held its "
      + "share.\n"
    text += "# TYPE traffic_event_streams_refused_total counter\n"
    text += "traffic_event_streams_refused_total \(refusedStreams.load(ordering: .relaxed))\n"
    text +=
      "# HELP traffic_event_streams_dropped_total Event streams ended because their reader "
      + "fell 1 MiB behind.\n"
    text += "# TYPE traffic_event_streams_dropped_total counter\n"
    text +=
      "traffic_event_streams_dropped_total "
      + "\(EventStream.droppedSlowReaders.load(ordering: .relaxed))\n"
    let now = Date()
    text += "# HELP traffic_incidents Incidents held by the engine.\n"
    text += "# TYPE traffic_incidents gauge\ntraffic_incidents \(engine.incidentCount)\n"
    if let updated = engine.lastUpdate {
      text += "# HELP traffic_incidents_updated_timestamp_seconds When incidents last changed.\n"
      text += "# TYPE traffic_incidents_updated_timestamp_seconds gauge\n"
      text += "traffic_incidents_updated_timestamp_seconds \(updated.timeIntervalSince1970)\n"
    }
    let cache = responseCache.statistics
    text += "# HELP traffic_response_cache_hits_total Queries answered from the response cache.\n"
    text += "# TYPE traffic_response_cache_hits_total counter\n"
    text += "traffic_response_cache_hits_total \(cache.hits)\n"
    text += "# HELP traffic_response_cache_misses_total Cacheable queries computed afresh.\n"
    text += "# TYPE traffic_response_cache_misses_total counter\n"
    text += "traffic_response_cache_misses_total \(cache.misses)\n"
    text +=
      "# HELP traffic_response_cache_declined_total Answers not kept: their query was new.\n"
    text += "# TYPE traffic_response_cache_declined_total counter\n"
    text += "traffic_response_cache_declined_total \(cache.declined)\n"
    text += "# HELP traffic_response_cache_bytes Body bytes held by the response cache.\n"
    text +=
      "# TYPE traffic_response_cache_bytes gauge\ntraffic_response_cache_bytes \(cache.bytes)\n"
    if let tileCache = tiles.statistics {
      text += "# HELP traffic_tile_cache_hits_total Tiles answered from the tile cache.\n"
      text += "# TYPE traffic_tile_cache_hits_total counter\n"
      text += "traffic_tile_cache_hits_total \(tileCache.hits)\n"
      text += "# HELP traffic_tile_renders_total Tiles drawn or encoded afresh.\n"
      text += "# TYPE traffic_tile_renders_total counter\n"
      text += "traffic_tile_renders_total \(tileCache.renders)\n"
    }
    let bounds = router.boundsStatistics
    text +=
      "# HELP traffic_routing_hierarchy_edges Edges of the contraction hierarchy routing "
      + "searches are guided by (0: none ready yet).\n"
    text += "# TYPE traffic_routing_hierarchy_edges gauge\n"
    text += "traffic_routing_hierarchy_edges \(bounds.edges)\n"
    text +=
      "# HELP traffic_routing_hierarchy_build_seconds How long the routing bounds in use "
      + "took to build.\n"
    text += "# TYPE traffic_routing_hierarchy_build_seconds gauge\n"
    text += "traffic_routing_hierarchy_build_seconds \(bounds.buildSeconds)\n"
    text += "# HELP traffic_event_streams Open incident event streams.\n"
    text += "# TYPE traffic_event_streams gauge\ntraffic_event_streams \(openEventStreams)\n"
    text += "# HELP traffic_http_requests_in_flight Requests being handled.\n"
    text += "# TYPE traffic_http_requests_in_flight gauge\n"
    text += "traffic_http_requests_in_flight \(requestsInFlight)\n"
    let admitted = admission.counts
    text +=
      "# HELP traffic_admission_waiting Expensive requests waiting for a worker.\n"
      + "# TYPE traffic_admission_waiting gauge\ntraffic_admission_waiting \(admitted.waiting)\n"
      + "# HELP traffic_admission_running Expensive requests running on the workers.\n"
      + "# TYPE traffic_admission_running gauge\ntraffic_admission_running \(admitted.running)\n"
      + "# HELP traffic_admission_refused_total Expensive requests answered 503: the client"
      + " had too many waiting.\n# TYPE traffic_admission_refused_total counter\n"
      + "traffic_admission_refused_total \(admitted.refused)\n"
      + "# HELP traffic_admission_expired_total Expensive requests answered 503: no worker"
      + " within the deadline.\n# TYPE traffic_admission_expired_total counter\n"
      + "traffic_admission_expired_total \(admitted.expired)\n"
    let statuses = Self.metricSeries(feeds.statusList(), most: configuration.maxMetricSources)
    text += "# HELP traffic_feed_pushes_total Feed documents pushed, by format and source.\n"
    text += "# TYPE traffic_feed_pushes_total counter\n"
    for status in statuses {
      text += "traffic_feed_pushes_total\(Self.feedLabels(status)) \(status.pushes)\n"
    }
    text += "# HELP traffic_feed_incidents Incidents in the last document of a source.\n"
    text += "# TYPE traffic_feed_incidents gauge\n"
    for status in statuses {
      text += "traffic_feed_incidents\(Self.feedLabels(status)) \(status.lastIncidentCount)\n"
    }
    text += "# HELP traffic_feed_last_push_age_seconds Seconds since a source's last good push.\n"
    text += "# TYPE traffic_feed_last_push_age_seconds gauge\n"
    for status in statuses {
      if let time = status.lastPushTime {
        text +=
          "traffic_feed_last_push_age_seconds\(Self.feedLabels(status)) "
          + "\(now.timeIntervalSince(time))\n"
      }
    }
    text +=
      "# HELP traffic_feed_ingest_lag_seconds Push time minus the document's publication time.\n"
    text += "# TYPE traffic_feed_ingest_lag_seconds gauge\n"
    for status in statuses {
      if let pushed = status.lastPushTime, let published = status.lastPublicationTime {
        text +=
          "traffic_feed_ingest_lag_seconds\(Self.feedLabels(status)) "
          + "\(pushed.timeIntervalSince(published))\n"
      }
    }
    text +=
      "# HELP traffic_feed_failing Whether a source's last push had an error (1) or not (0).\n"
    text += "# TYPE traffic_feed_failing gauge\n"
    for status in statuses {
      let failing = (status.lastErrorTime ?? .distantPast) > (status.lastPushTime ?? .distantPast)
      text += "traffic_feed_failing\(Self.feedLabels(status)) \(failing ? 1 : 0)\n"
    }
    var response = HTTPResponse(
      status: 200, headers: ["Content-Type": "text/plain; version=0.0.4; charset=utf-8"],
      body: Data(text.utf8))
    response.headers.add("Cache-Control", "no-store")
    return response
  }

  /// The sources `/metrics` names: the first `most` to push keep their own series; the
  /// later ones (and a source called `other`) are summed per format as source `other`:
  /// pushes and incidents added up, the times those of the latest push and error among them.
  static func metricSeries(_ statuses: [FeedIngest.Status], most: Int) -> [FeedIngest.Status] {
    let kept = Set(
      statuses.filter { $0.source != "other" }.sorted { $0.arrival < $1.arrival }.prefix(most)
        .map(\.arrival))
    var series: [FeedIngest.Status] = []
    var others: [FeedFormat: FeedIngest.Status] = [:]
    for status in statuses {
      guard !kept.contains(status.arrival) else {
        series.append(status)
        continue
      }
      var other =
        others[status.format]
        ?? FeedIngest.Status(format: status.format, source: "other", arrival: status.arrival)
      other.pushes += status.pushes
      other.lastIncidentCount += status.lastIncidentCount
      if let time = status.lastPushTime, time > (other.lastPushTime ?? .distantPast) {
        other.lastPushTime = time
        other.lastPublicationTime = status.lastPublicationTime
      }
      if let time = status.lastErrorTime, time > (other.lastErrorTime ?? .distantPast) {
        other.lastErrorTime = time
      }
      others[status.format] = other
    }
    return (series + others.values).sorted {
      ($0.format.rawValue, $0.source) < ($1.format.rawValue, $1.source)
    }
  }

  private static func feedLabels(_ status: FeedIngest.Status) -> String {
    "{format=\(ServerMetrics.label(status.format.rawValue)),"
      + "source=\(ServerMetrics.label(status.source))}"
  }
}
