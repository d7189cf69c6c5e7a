// swift-tools-version:6.0
import PackageDescription

/// Debug builds (and therefore `make test`) check data-structure invariants such as the
/// R-tree's packing after every bulk load; release builds skip those checks.
let invariantChecks: [SwiftSetting] = [.define("GEO_INVARIANTS", .when(configuration: .debug))]

let package = Package(
  name: "swift-traffic",
  products: [
    .library(name: "Geo", targets: ["Geo"]),
    .library(name: "Traffic", targets: ["Traffic"]),
    .library(name: "TrafficFeeds", targets: ["TrafficFeeds"]),
    .library(name: "Roads", targets: ["Roads"]),
    .executable(name: "traffic", targets: ["traffic"]),
    .executable(name: "traffic-bench", targets: ["traffic-bench"]),
  ],
  targets: [
    .target(name: "Geo", swiftSettings: invariantChecks),
    .target(
      name: "Traffic",
      dependencies: ["Geo", "Roads"],
      resources: [.copy("Resources/Localization")]
    ),
    .target(name: "TrafficFeeds", dependencies: ["Traffic"]),
    .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
    .target(name: "Roads", dependencies: ["Geo", "CZlib"]),
    .executableTarget(name: "traffic", dependencies: ["Geo"]),
    .executableTarget(name: "find-traffic", dependencies: ["Traffic"], path: "Examples/FindTraffic"),
    .executableTarget(name: "traffic-bench", dependencies: ["Geo", "Traffic"]),
    .target(name: "TrafficTestSupport", path: "Tests/TrafficTestSupport"),
    .testTarget(
      name: "GeoTests",
      dependencies: ["Geo", "TrafficTestSupport"],
      exclude: ["Vectors"],
      swiftSettings: invariantChecks
    ),
    .testTarget(name: "TrafficCLITests", dependencies: ["traffic", "TrafficTestSupport"]),
    .testTarget(name: "ExamplesTests", dependencies: ["find-traffic", "Traffic"]),
    .testTarget(name: "TrafficTests", dependencies: ["Traffic", "Roads", "TrafficTestSupport"]),
    .testTarget(
      name: "FlowAccuracyTests", dependencies: ["Traffic", "Roads", "TrafficTestSupport"]),
    .testTarget(
      name: "TrafficFeedsTests", dependencies: ["TrafficFeeds", "TrafficTestSupport"],
      exclude: ["Fixtures", "Fuzz"]),
    .testTarget(
      name: "RoadsTests", dependencies: ["Roads", "TrafficTestSupport"], exclude: ["Fixtures"]),
  ],
  swiftLanguageModes: [.v6]
)
