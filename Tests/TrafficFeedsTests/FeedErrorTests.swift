import Testing
import TrafficFeeds

@Suite struct FeedErrorTests {
  @Test func describesFormatPlaceAndReason() {
    let error = FeedError(
      format: .datex2, location: "situation[2] (line 40)", reason: "no location")
    #expect(error.description == "datex2: situation[2] (line 40): no location")
    #expect(FeedError(format: .hereV7, reason: "empty").description == "here-v7: empty")
  }

  @Test func formatNamesAreTheCommandLineNames() {
    #expect(
      FeedFormat.allCases.map(\.rawValue) == [
        "datex2", "wzdx", "open511", "waze", "here-v7", "tomtom",
      ])
  }
}
