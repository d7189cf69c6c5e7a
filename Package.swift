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
    .library(name: "TrafficSQLite", targets: ["TrafficSQLite"]),
    .library(name: "TrafficPostgres", targets: ["TrafficPostgres"]),
    .executable(name: "traffic", targets: ["traffic"]),
    .executable(name: "traffic-bench", targets: ["traffic-bench"]),
  ],
  targets: [
    .target(name: "Geo", swiftSettings: invariantChecks),
    .target(
      name: "Traffic",
      dependencies: ["Geo"],
      resources: [.copy("Resources/Localization")]
    ),
    .target(name: "TrafficFeeds", dependencies: ["Traffic"]),
    .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
    .target(name: "Roads", dependencies: ["Geo", "CZlib"]),
    .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
    .target(name: "TrafficSQLite", dependencies: ["Traffic", "CSQLite"]),
    .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
    .target(name: "TrafficPostgres", dependencies: ["Traffic", "CLibPQ"]),
    .executableTarget(
      name: "traffic", dependencies: ["Geo", "Traffic", "TrafficSQLite", "TrafficFeeds"]),
    .executableTarget(
      name: "find-traffic", dependencies: ["Traffic"], path: "Examples/FindTraffic"),
    .executableTarget(name: "traffic-fuzz", dependencies: ["Geo", "TrafficFeeds"]),
    .executableTarget(name: "traffic-bench", dependencies: ["Geo", "Traffic"]),
    .target(name: "TrafficTestSupport", path: "Tests/TrafficTestSupport"),
    .target(
      name: "TrafficStoreContract", dependencies: ["Traffic"], path: "Tests/TrafficStoreContract"),
    .executableTarget(
      name: "traffic-store-crash-writer", dependencies: ["TrafficSQLite"],
      path: "Tests/TrafficStoreCrashWriter"),
    .testTarget(
      name: "GeoTests",
      dependencies: ["Geo", "TrafficTestSupport"],
      exclude: ["Vectors"],
      swiftSettings: invariantChecks
    ),
    .testTarget(name: "TrafficCLITests", dependencies: ["traffic", "TrafficTestSupport"]),
    .testTarget(name: "ExamplesTests", dependencies: ["find-traffic", "Traffic"]),
    .testTarget(
      name: "TrafficTests", dependencies: ["Traffic", "TrafficTestSupport", "TrafficStoreContract"]),
    .testTarget(
      name: "TrafficSQLiteTests",
      dependencies: [
        "TrafficSQLite", "TrafficTestSupport", "TrafficStoreContract",
        "traffic-store-crash-writer",
      ]),
    .testTarget(
      name: "TrafficPostgresTests",
      dependencies: ["TrafficPostgres", "TrafficTestSupport", "TrafficStoreContract"]),
    .testTarget(
      name: "TrafficFeedsTests", dependencies: ["TrafficFeeds", "TrafficTestSupport"],
      exclude: ["Fixtures", "Fuzz"]),
    .testTarget(
      name: "RoadsTests", dependencies: ["Roads", "TrafficTestSupport"], exclude: ["Fixtures"]),
  ],
  swiftLanguageModes: [.v6]
)
