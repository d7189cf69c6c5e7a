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
    for kind in [".target(", ".executableTarget(", ".systemLibrary(", ".plugin("] {
      var rest = text[...]
      while let start = rest.range(of: kind) {
        // The call's text, up to its closing parenthesis.
        var depth = 0
        var end = start.lowerBound
        for index in rest[start.lowerBound...].indices {
          let character = rest[index]
          if character == "(" { depth += 1 }
          if character == ")" {
            depth -= 1
            if depth == 0 {
              end = index
              break
            }
          }
        }
        let call = rest[start.lowerBound...end]
        rest = rest[end...].dropFirst()
        guard let name = Self.quoted(after: "name:", in: call) else { continue }
        var dependencies: Set<String> = []
        if let list = call.range(of: "dependencies: [") {
          let tail = call[list.upperBound...]
          let close = tail.firstIndex(of: "]") ?? tail.endIndex
          dependencies = Set(
            tail[..<close].split(separator: "\"", omittingEmptySubsequences: false).enumerated()
              .filter { $0.offset % 2 == 1 }.map { String($0.element) })
        }
        targets[name] = dependencies
      }
    }
    return targets
  }

  static func quoted(after label: String, in text: Substring) -> String? {
    guard let range = text.range(of: label) else { return nil }
    let parts = text[range.upperBound...].split(separator: "\"", maxSplits: 2)
    return parts.count >= 2 ? String(parts[1]) : nil
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
