import Foundation
import Testing
import TrafficTestSupport

/// `docs/architecture.md` names every target of `Package.swift` with its true dependencies.
@Suite struct ArchitectureDocumentTests {
  /// Targets of `Package.swift` (test targets aside) and their dependencies.
  static func packageTargets() throws -> [String: Set<String>] {
    let text = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
    var targets: [String: Set<String>] = [:]
    for target in PackageManifest.parse(text) where target.kind != "testTarget" {
      targets[target.name] = Set(target.dependencies)
    }
    return targets
  }

  /// The rows of the package table in `docs/architecture.md`: target, dependencies.
  static func documentedTargets() throws -> [String: Set<String>] {
    let text = try String(
      contentsOf: Fixtures.repositoryRoot.appendingPathComponent("docs/architecture.md"),
      encoding: .utf8)
    var targets: [String: Set<String>] = [:]
    var inTable = false
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.hasPrefix("| target | kind | depends on |") {
        inTable = true
        continue
      }
      guard inTable else { continue }
      guard line.hasPrefix("|") else { break }
      let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard cells.count > 4, !cells[1].hasPrefix("---") else { continue }
      func names(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
          $0.offset % 2 == 1
        }
        .map { String($0.element) }
      }
      for name in names(cells[1]) { targets[name] = Set(names(cells[3])) }
    }
    return targets
  }

  @Test func everyTargetIsDocumentedWithItsDependencies() throws {
    let package = try Self.packageTargets()
    let documented = try Self.documentedTargets()
    #expect(package.count > 20)
    #expect(Set(documented.keys) == Set(package.keys))
    for (name, dependencies) in package.sorted(by: { $0.key < $1.key }) {
      #expect(documented[name] == dependencies, "\(name)")
    }
  }
}
