import Foundation
import Testing
import TrafficTestSupport

/// Package.swift declares of each target the dependencies its files import, no more and no
/// fewer: a module imported but not declared builds only while another dependency happens
/// to bring it, and one declared but not imported is a false edge in the module graph
/// (docs/architecture.md draws from these lists).
///
/// Only imports of the package's own targets (Swift and system-library) count; Foundation,
/// Testing and the other modules of the toolchain are not the manifest's to declare. A
/// dependency on an executable target that the files do not import must be named in them
/// (`"traffic-store-crash-writer"`): a test that runs the program beside it.
@Suite struct PackageManifestTests {
  @Test func dependenciesAreWhatTheFilesImport() throws {
    let manifest = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    let targets = PackageManifest.parse(manifest)
    #expect(targets.count > 10, "Package.swift's targets were not found")
    #expect(targets.contains { $0.name == "Codec" && $0.kind == "target" })
    let problems = PackageManifest.mismatches(targets, files: PackageManifest.swiftFiles(of:))
    #expect(problems.isEmpty, "\n\(problems.joined(separator: "\n"))")
  }

  /// The check itself, on a made-up manifest: it sees an unused and an undeclared
  /// dependency, follows `path:`, and takes an executable run by name.
  @Test func theCheckSeesUnusedAndUndeclaredDependencies() {
    let manifest = """
      let package = Package(
        name: "p",
        products: [.library(name: "A", targets: ["A"])],
        targets: [
          // A comment naming .target(name: "Ghost")
          .systemLibrary(name: "CLib", providers: [.apt(["lib-dev"])]),
          .target(name: "A", dependencies: ["CLib"]),
          .target(name: "B", dependencies: ["A", .product(name: "X", package: "x")]),
          .executableTarget(name: "tool-one", dependencies: ["A"], path: "Tools/One"),
          .testTarget(name: "BTests", dependencies: ["B", "tool-one"], exclude: ["Data"]),
        ]
      )
      """
    let targets = PackageManifest.parse(manifest)
    #expect(targets.map(\.name) == ["CLib", "A", "B", "tool-one", "BTests"])
    #expect(targets[3].path == "Tools/One")
    #expect(targets[4].path == "Tests/BTests")
    let files: [String: [String]] = [
      "A": ["import Foundation\n@_implementationOnly import CLib\n"],
      // B imports CLib without declaring it and declares A without importing it.
      "B": ["import CLib\nlet text = \"\"\"\nimport A\n\"\"\"\n"],
      "tool-one": ["internal import A\nimport struct A.Thing"],
      "BTests": ["@testable import B\nlet tool = \"tool-one\""],
    ]
    let problems = PackageManifest.mismatches(targets) { files[$0.name] ?? [] }
    #expect(problems == ["B imports CLib, undeclared", "B declares A, not imported"])
    // The executable not named by the test is an unused dependency too.
    let unnamed = PackageManifest.mismatches(targets) { target in
      target.name == "BTests" ? ["@testable import B"] : files[target.name] ?? []
    }
    #expect(unnamed.contains("BTests declares tool-one, not imported or named"))
  }

}
