// swift-tools-version:6.0
import PackageDescription

/// Debug builds (and therefore `make test`) check data-structure invariants such as the
/// R-tree's packing after every bulk load; release builds skip those checks.
let invariantChecks: [SwiftSetting] = [.define("GEO_INVARIANTS", .when(configuration: .debug))]

let package = Package(
  name: "swift-traffic",
  products: [
    .library(name: "Geo", targets: ["Geo"]),
    .library(name: "Roads", targets: ["Roads"]),
    .library(name: "Traffic", targets: ["Traffic"]),
    .library(name: "TrafficFeeds", targets: ["TrafficFeeds"]),
    .library(name: "TrafficSQLite", targets: ["TrafficSQLite"]),
    .library(name: "TrafficPostgres", targets: ["TrafficPostgres"]),
    .library(name: "TrafficServer", targets: ["TrafficServer"]),
    .library(name: "TrafficService", targets: ["TrafficService"]),
    .library(name: "TrafficMap", targets: ["TrafficMap"]),
    .library(name: "TrafficRouting", targets: ["TrafficRouting"]),
    .executable(name: "traffic", targets: ["traffic"]),
    .executable(name: "traffic-bench", targets: ["traffic-bench"]),
  ],
  targets: [
    // C libraries from Debian packages, each imported by exactly one Swift module.
    .systemLibrary(name: "CZlib", path: "Sources/CZlib", providers: [.apt(["zlib1g-dev"])]),
    .systemLibrary(name: "CBZip2", providers: [.apt(["libbz2-dev"])]),
    .systemLibrary(name: "CLZ4", providers: [.apt(["liblz4-dev"])]),
    .systemLibrary(name: "CZstd", providers: [.apt(["libzstd-dev"])]),
    .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
    .systemLibrary(name: "CJemalloc", providers: [.apt(["libjemalloc-dev"])]),
    .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
    .systemLibrary(
      name: "CMicroHTTPD", path: "Sources/CMicroHTTPD", providers: [.apt(["libmicrohttpd-dev"])]),
    .systemLibrary(name: "CCairo", path: "Sources/CCairo", providers: [.apt(["libcairo2-dev"])]),

    // Libraries, from the bottom up. Codec is the shared toolbox (JSON, RFC 3339, base64,
    // binary and protobuf coding, a heap); it is no product: only this package uses it.
    .target(name: "Codec"),
    // The version and git revision of the build, written in by a plugin before each build.
    .target(name: "TrafficBuildInfo", plugins: ["BuildInfoPlugin"]),
    .plugin(name: "BuildInfoPlugin", capability: .buildTool()),
    .target(name: "Geo", dependencies: ["Codec"], swiftSettings: invariantChecks),
    .target(name: "Zlib", dependencies: ["Codec", "CZlib", "CBZip2", "CLZ4", "CZstd"]),
    .target(name: "Roads", dependencies: ["Geo", "Codec", "Zlib"]),
    .target(
      name: "Traffic",
      dependencies: ["Geo", "Roads", "Codec"],
      resources: [.copy("Resources/Localization")]
    ),
    .target(name: "TrafficFeeds", dependencies: ["Geo", "Roads", "Traffic", "Codec", "Zlib"]),
    .target(name: "TrafficSQLite", dependencies: ["Geo", "Roads", "Traffic", "CSQLite"]),
    .target(name: "TrafficPostgres", dependencies: ["Geo", "Roads", "Traffic", "CLibPQ"]),
    .target(
      name: "TrafficServer",
      dependencies: [
        "Codec", "Geo", "Traffic", "TrafficFeeds", "TrafficMap", "TrafficRouting",
        "TrafficBuildInfo", "CMicroHTTPD", "Zlib",
      ],
      resources: [.copy("Resources/web"), .copy("Resources/openapi.json")]),
    // The composition root of `traffic serve`: the store, the network, the engine, the
    // HTTP server, the polled feeds, the PostgreSQL sync and the demo, put together.
    .target(
      name: "TrafficService",
      dependencies: [
        "Codec", "Roads", "Traffic", "TrafficFeeds", "TrafficSQLite", "TrafficPostgres",
        "TrafficDemo", "TrafficServer",
      ]),
    .target(name: "TrafficMap", dependencies: ["Codec", "Geo", "Roads", "Traffic", "CCairo"]),
    .target(name: "TrafficRouting", dependencies: ["Codec", "Geo", "Roads", "Traffic"]),
    .target(
      name: "TrafficDemo", dependencies: ["Codec", "Roads", "Traffic", "TrafficFeeds"],
      exclude: ["Resources/README.md"], resources: [.copy("Resources/a10kw-probes.ndjson")]),

    // Executables: argument handling and a call into the libraries.
    .executableTarget(
      name: "traffic",
      dependencies: [
        "Geo", "Codec", "Roads", "Traffic", "TrafficSQLite", "TrafficPostgres", "TrafficFeeds",
        "TrafficServer", "TrafficService", "TrafficMap", "TrafficRouting", "TrafficBuildInfo",
        "CJemalloc",
      ]),
    .executableTarget(
      name: "traffic-bench",
      dependencies: [
        "Codec", "Geo", "Roads", "Traffic", "TrafficFeeds", "TrafficSQLite", "TrafficPostgres",
        "TrafficMap", "TrafficRouting", "Zlib",
        "TrafficTestSupport",
      ]),
    .executableTarget(
      name: "traffic-fuzz",
      dependencies: ["Geo", "Codec", "Roads", "Traffic", "TrafficFeeds", "TrafficServer"]),
    .executableTarget(
      name: "find-traffic", dependencies: ["Traffic"], path: "Examples/FindTraffic"),
    .executableTarget(
      name: "map-traffic", dependencies: ["Roads", "Traffic", "TrafficMap"],
      path: "Examples/MapTraffic"),

    // Test support and tests.
    .target(
      name: "TrafficTestSupport", dependencies: ["Geo", "Roads"], path: "Tests/TrafficTestSupport"),
    .target(
      name: "TrafficStoreContract", dependencies: ["Traffic", "TrafficTestSupport"],
      path: "Tests/TrafficStoreContract"),
    .executableTarget(
      name: "traffic-store-crash-writer", dependencies: ["Traffic", "TrafficSQLite"],
      path: "Tests/TrafficStoreCrashWriter"),
    .testTarget(
      name: "CodecTests", dependencies: ["Codec", "TrafficTestSupport"], exclude: ["Fuzz"]),
    .testTarget(
      name: "GeoTests",
      dependencies: ["Codec", "Geo", "TrafficTestSupport"],
      exclude: ["Vectors", "Fuzz"],
      swiftSettings: invariantChecks
    ),
    .testTarget(name: "ZlibTests", dependencies: ["Zlib", "TrafficTestSupport"]),
    .testTarget(name: "TrafficBenchTests", dependencies: ["traffic-bench", "TrafficTestSupport"]),
    .testTarget(
      name: "RoadsTests", dependencies: ["Codec", "Geo", "Roads", "Zlib", "TrafficTestSupport"],
      exclude: ["Fixtures"]),
    .testTarget(
      name: "TrafficTests",
      dependencies: [
        "Codec", "Geo", "Traffic", "Roads", "TrafficTestSupport", "TrafficStoreContract",
      ]),
    .testTarget(
      name: "FlowAccuracyTests",
      dependencies: [
        "Codec", "Traffic", "TrafficFeeds", "Roads", "TrafficRouting", "TrafficTestSupport",
      ]),
    .testTarget(
      name: "TrafficFeedsTests",
      dependencies: [
        "Codec", "Geo", "Roads", "Traffic", "TrafficFeeds", "TrafficTestSupport", "Zlib",
      ],
      exclude: ["Fixtures", "Fuzz"]),
    .testTarget(
      name: "TrafficSQLiteTests",
      dependencies: [
        "Geo", "Roads", "Traffic", "TrafficSQLite", "TrafficTestSupport",
        "TrafficStoreContract", "traffic-store-crash-writer",
      ]),
    .testTarget(
      name: "TrafficPostgresTests",
      dependencies: [
        "Geo", "Roads", "Traffic", "TrafficPostgres", "TrafficTestSupport",
        "TrafficStoreContract",
      ]),
    .testTarget(
      name: "TrafficServerTests",
      dependencies: [
        "Codec", "Geo", "Roads", "Traffic", "TrafficFeeds", "TrafficRouting", "TrafficServer",
        "TrafficService", "TrafficSQLite", "Zlib", "TrafficBuildInfo", "TrafficTestSupport",
        "TrafficStoreContract",
      ],
      exclude: ["Fuzz"]
    ),
    .testTarget(
      name: "WebMapBrowserTests",
      dependencies: [
        "TrafficServer", "Traffic", "Roads", "Geo", "TrafficDemo", "TrafficFeeds",
        "TrafficRouting", "TrafficTestSupport",
      ]),
    .testTarget(
      name: "FeedPollerTests",
      dependencies: [
        "Traffic", "TrafficFeeds", "TrafficServer", "TrafficSQLite", "TrafficPostgres",
        "TrafficTestSupport",
      ]),
    .testTarget(
      name: "MultiNodeTests", dependencies: ["traffic", "TrafficPostgres", "TrafficTestSupport"]),
    .testTarget(name: "RemoteEngineTests", dependencies: ["Traffic", "TrafficServer"]),
    .testTarget(
      name: "TrafficCLITests",
      dependencies: [
        "Codec", "Geo", "Roads",
        "traffic", "Traffic", "TrafficFeeds", "TrafficServer", "TrafficSQLite",
        "TrafficBuildInfo", "TrafficTestSupport",
      ]),
    .testTarget(
      name: "TrafficRoutingTests",
      dependencies: ["Geo", "Roads", "Traffic", "TrafficRouting", "TrafficTestSupport"]),
    .testTarget(
      name: "TrafficMapTests",
      dependencies: [
        "Roads", "Codec", "Traffic", "TrafficMap", "TrafficServer", "TrafficTestSupport",
      ],
      exclude: ["Golden"]),
    .testTarget(
      name: "ExamplesTests", dependencies: ["find-traffic", "map-traffic", "Traffic", "TrafficMap"]),
    .testTarget(
      name: "TrafficDemoTests",
      dependencies: [
        "Codec", "TrafficDemo", "Traffic", "TrafficFeeds", "Roads", "TrafficTestSupport",
      ]),
  ],
  swiftLanguageModes: [.v6]
)

// Every Swift target spells existential types `any P` (Swift 6's upcoming `ExistentialAny`),
// so that a protocol used as a type is visible as such in every signature.
for target in package.targets where target.type != .system && target.type != .plugin {
  target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("ExistentialAny")]
}
