import Foundation
import Roads
import Testing
import Traffic
import TrafficTestSupport

@testable import TrafficFeeds

/// The typical-speeds file and Valhalla's `way_edges.txt` as written on any system: a file
/// with CRLF line ends (Windows, a spreadsheet's CSV) was one line to the reader, so a
/// profiles import stored nothing and said "0 rows" with success.
@Suite struct TypicalSpeedsFileTests {
  static let rows = [
    "West,n0,n1,mon,08:00,30.00,3",
    "West,n0,n1,mon,08:05,31.50,4",
    "East,n2,n1,tue,17:30,12.00,15",
  ]

  static func decode(_ text: String) throws -> TypicalSpeedsFile.Decoded {
    try TypicalSpeedsFile.decode(text, network: try CrossingNetwork.network(), day: 20_000)
  }

  @Test(arguments: ["\n", "\r\n", "\r"])
  func everyLineEndReadsTheSameWeeks(_ end: String) throws {
    let text = ([TypicalSpeedsFile.header] + Self.rows).joined(separator: end) + end
    let decoded = try Self.decode(text)
    let reference = try Self.decode(
      ([TypicalSpeedsFile.header] + Self.rows).joined(separator: "\n"))
    #expect(decoded.rows == 3)
    #expect(decoded.unknownSegments == 0)
    #expect(decoded.weeks.map(\.0) == [0, 3])
    #expect(decoded.weeks.map(\.1) == reference.weeks.map(\.1))
  }

  @Test func aMalformedRowAfterCRLFLinesIsFoundByItsLineNumber() throws {
    let text = ([TypicalSpeedsFile.header] + Self.rows + ["GARBAGE"]).joined(separator: "\r\n")
    #expect {
      try Self.decode(text)
    } throws: { error in
      "\(error)".contains("line 5 has 1 fields")
    }
  }

  @Test func fieldsArePaddedOrCountsFractional() throws {
    let padded = try Self.decode(
      TypicalSpeedsFile.header + "\n West , n0 ,n1, mon ,08:00, 30.00 , 3 \n")
    #expect(padded.rows == 1 && padded.unknownSegments == 0 && padded.weeks.count == 1)
    #expect {
      try Self.decode(TypicalSpeedsFile.header + "\nWest,n0,n1,mon,08:00,30,2.5\n")
    } throws: { error in
      "\(error)".contains("line 2: samples \"2.5\" must be a whole number")
    }
  }

  /// The file has no dates: a bin whose one sample is from today (not typical yet in the
  /// store) was written, and counted as typical once imported.
  @Test func binsNotTypicalYetAreNotWritten() throws {
    let network = try CrossingNetwork.network()
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let engine = try TrafficEngine(
      store: InMemoryTrafficStore(), clock: { now }, network: network)
    let today = TypicalSpeeds.day(of: now)
    let week = try TypicalWeek(entries: [
      TypicalWeek.pack(bin: 96, samples: 1, day: today - 7, speed: 8),  // Monday 08:00
      TypicalWeek.pack(bin: 97, samples: 1, day: today, speed: 6),  // 08:05, not yet
      TypicalWeek.pack(bin: 98, samples: 2, day: today, speed: 7),  // 08:10
    ])
    _ = try engine.setTypicalWeeks([(0, week), (2, TypicalWeek())])
    let picture = try #require(try engine.speedPicture(inside: nil, at: nil))
    let file = TypicalSpeedsFile.encode(picture)
    #expect(file.segments == 1)
    #expect(
      file.text.split(separator: "\n").dropFirst() == [
        "West,n0,n1,mon,08:00,28.80,1", "West,n0,n1,mon,08:10,25.20,2",
      ])
  }

  @Test(arguments: ["\n", "\r\n"])
  func wayEdgesReadWithEveryLineEnd(_ end: String) throws {
    let edges = try ValhallaSpeedExport.wayEdges(
      ["35,1,100,0,200", "36,1,300"].joined(separator: end) + end)
    #expect(edges.edges[.init(way: 35, forward: true)] == [100])
    #expect(edges.edges[.init(way: 35, forward: false)] == [200])
    #expect(edges.edges[.init(way: 36, forward: true)] == [300])
  }
}
