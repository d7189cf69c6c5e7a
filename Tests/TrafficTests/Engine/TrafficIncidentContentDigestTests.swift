import Foundation
import Testing
import Traffic

@Suite struct TrafficIncidentContentDigestTests {
  typealias F = EngineFixtures

  @Test func ignoresTheVersionIdentityEntryTimeAndSources() throws {
    let incident = try F.incident("a", [(52.5, 13.4)])
    var restamped = incident.reidentified(id: "other-v9", originalId: "other")
    restamped.entryTime = F.now
    restamped.sources = [TrafficIncidentSource(feed: "f", id: "x", reportDigest: "0")]
    #expect(restamped.contentDigest == incident.contentDigest)
    #expect(incident.contentDigest.count == 16)
    #expect(incident.contentDigest.allSatisfy { "0123456789abcdef".contains($0) })
  }

  @Test func changesWithWhatTheIncidentSays() throws {
    let incident = try F.incident("a", [(52.5, 13.4)])
    var variants = [incident]
    variants.append(try F.incident("a", [(52.5, 13.4)], impact: .critical))
    variants.append(try F.incident("a", [(52.5, 13.4)], type: .construction))
    variants.append(try F.incident("a", [(52.5, 13.4)], end: F.now + 2 * F.hour))
    variants.append(try F.incident("a", [(52.5, 13.40001)]))
    var texts = incident
    texts.sourceTexts = [LocalizedText(text: "Lane closed", language: .enUS)]
    variants.append(texts)
    var restricted = incident
    restricted.vehicleRestrictions = [.truck: .always]
    variants.append(restricted)
    #expect(Set(variants.map(\.contentDigest)).count == variants.count)
  }

  @Test func doesNotDependOnTheOrderOfASet() throws {
    // Sets of equal elements but different capacities iterate in different orders.
    let goods = VehicleRestriction.HazardousGoods.allCases
    let sets = [1, 16, 128, 1024, 8192].map { capacity in
      var set = Set<VehicleRestriction.HazardousGoods>(minimumCapacity: capacity)
      for item in goods { set.insert(item) }
      return set
    }
    let orders = Set(sets.map { $0.map(\.rawValue) })
    try #require(orders.count > 1, "the sets happen to iterate alike; the test shows nothing")
    let digests = try sets.map { set in
      var incident = try F.incident("a", [(52.5, 13.4)])
      var restriction = VehicleRestriction()
      restriction.restrictedHazardousGoods = set
      incident.vehicleRestrictions = [.truck: restriction]
      return incident.contentDigest
    }
    #expect(Set(digests).count == 1)
  }
}
