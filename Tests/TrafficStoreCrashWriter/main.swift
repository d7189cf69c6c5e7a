// The child process of the SQLite crash test: imports large batches into a store until it is
// killed.
//
// Usage: traffic-store-crash-writer <database> <first batch> <batch size>
//
// Batch n upserts `size` new incidents "b<n>-<k>", a second version of every incident of
// batch n - 1 (which the parent guarantees is stored), and deletes batch n - 2, so one
// transaction touches current rows, history and R*Tree entries of three batches while the
// file stays small. Batch 0 into an empty file is a bulk load. Before each batch it prints "begin n",
// after its commit "commit n", and flushes, so the parent knows what was acknowledged.
import Foundation
import Traffic
import TrafficSQLite

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("traffic-store-crash-writer: \(message)\n".utf8))
  exit(2)
}

func say(_ line: String) {
  FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let first = Int(arguments[2]), let size = Int(arguments[3]),
  first >= 0, size > 0
else { fail("usage: traffic-store-crash-writer <database> <first batch> <batch size>") }

func incident(batch: Int, number: Int, version: Int) throws -> TrafficIncident {
  let latitude = -60 + Double((batch &* 7 &+ number) % 120)
  let longitude = -179 + Double((batch &* 13 &+ number &* 3) % 358)
  return try TrafficIncident(
    id: "b\(batch)-\(number)-v\(version)", originalId: "b\(batch)-\(number)", type: .accident,
    impact: .major, description: LocalizedText(text: "batch \(batch)", language: .enUS),
    location: TrafficLocation(point: GeoCoordinates(latitude: latitude, longitude: longitude)))
}

do {
  // Batch 0 into an empty file is a bulk load (a rollback journal instead of the WAL).
  let store = try SQLiteTrafficStore(
    path: arguments[1], access: .readWrite, durability: .processCrash,
    bulkLoadUpserts: size / 2)
  var batch = first
  while true {
    var upserts = try (0..<size).map { try incident(batch: batch, number: $0, version: 1) }
    if batch > 0 {
      upserts += try (0..<size).map { try incident(batch: batch - 1, number: $0, version: 2) }
    }
    let deletions = batch > 1 ? (0..<size).map { "b\(batch - 2)-\($0)" } : []
    say("begin \(batch)")
    try store.apply(IncidentBatch(upserts: upserts, deletions: deletions))
    say("commit \(batch)")
    batch += 1
  }
} catch {
  fail("\(error)")
}
