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
    .library(name: "TrafficServer", targets: ["TrafficServer"]),
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
    .systemLibrary(
      name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
    .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
    .target(name: "Zlib", dependencies: ["CZlib"]),
    .target(
      name: "TrafficServer", dependencies: ["Traffic", "TrafficFeeds", "CMicroHTTPD", "Zlib"]),
    .executableTarget(
      name: "traffic-load-server", dependencies: ["TrafficServer"],
      path: "bench/traffic-load-server"),
    .executableTarget(name: "traffic", dependencies: ["Geo"]),
    .executableTarget(
      name: "find-traffic", dependencies: ["Traffic"], path: "Examples/FindTraffic"),
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
    .testTarget(name: "TrafficTests", dependencies: ["Traffic", "TrafficTestSupport"]),
    .testTarget(
      name: "TrafficFeedsTests", dependencies: ["TrafficFeeds", "TrafficTestSupport"],
      exclude: ["Fixtures", "Fuzz"]),
    .testTarget(name: "ZlibTests", dependencies: ["Zlib", "TrafficTestSupport"]),
    .testTarget(
      name: "TrafficServerTests", dependencies: ["TrafficServer", "TrafficTestSupport"]),
  ],
  swiftLanguageModes: [.v6]
)
