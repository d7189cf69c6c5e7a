import Foundation

/// The targets of a Package.swift, read from its text: enough of the manifest's syntax for
/// this package (string-literal names, `dependencies:`, `path:` and `exclude:`).
public enum PackageManifest {
  /// One target declaration.
  public struct Target: Equatable, Sendable {
    /// `target`, `executableTarget`, `testTarget`, `systemLibrary`, `plugin`, …
    public var kind: String
    /// The target's name.
    public var name: String
    /// The names in `dependencies:` (products of other packages included).
    public var dependencies: [String]
    /// The directory of its sources, relative to the package.
    public var path: String
    /// The paths under `path` that are not sources (`exclude:`).
    public var exclude: [String]

    /// Creates a target.
    public init(
      kind: String, name: String, dependencies: [String], path: String, exclude: [String]
    ) {
      self.kind = kind
      self.name = name
      self.dependencies = dependencies
      self.path = path
      self.exclude = exclude
    }

    /// The name its module is imported by (`traffic-fuzz` → `traffic_fuzz`).
    public var moduleName: String {
      String(name.map { $0.isLetter || $0.isNumber || $0 == "_" ? $0 : "_" })
    }
  }

  /// The target declarations of `manifest`, in order.
  public static func parse(_ manifest: String) -> [Target] {
    let text = Array(withoutComments(manifest))
    // `Package(targets: [...])`, not a product's `targets:`.
    guard let package = find(Array("Package("), in: text, from: 0),
      let start = argument(Array("targets:"), of: text, from: package + "Package".count),
      let open = text[start...].firstIndex(of: "[")
    else { return [] }
    let listEnd = closing(text, from: open)
    var targets: [Target] = []
    var index = start
    let kinds = [
      "target", "executableTarget", "testTarget", "systemLibrary", "plugin", "macro",
      "binaryTarget",
    ]
    while index < listEnd {
      guard text[index] == ".",
        let kind = kinds.first(where: { matches(Array($0 + "("), in: text, at: index + 1) })
      else {
        index += 1
        continue
      }
      let open = index + 1 + kind.count
      let end = closing(text, from: open)
      let body = String(text[open...end])
      if let name = firstString(after: "name:", in: body) {
        let defaultPath =
          (kind == "testTarget" ? "Tests/" : kind == "plugin" ? "Plugins/" : "Sources/")
        targets.append(
          Target(
            kind: kind, name: name, dependencies: strings(inList: "dependencies:", of: body),
            path: firstString(after: "path:", in: body) ?? defaultPath + name,
            exclude: strings(inList: "exclude:", of: body)))
      }
      index = end + 1
    }
    return targets
  }

  /// What differs between what each target declares and what its files import, one line
  /// each (empty when the manifest is true).
  ///
  /// - Parameter files: The texts of a target's Swift files.
  public static func mismatches(_ targets: [Target], files: (Target) -> [String]) -> [String] {
    let byModule = Dictionary(targets.map { ($0.moduleName, $0) }, uniquingKeysWith: { a, _ in a })
    let names = Set(targets.map(\.name))
    var problems: [String] = []
    for target in targets where target.kind != "systemLibrary" && target.kind != "plugin" {
      let texts = files(target)
      var imported: [String] = []
      for text in texts {
        for module in imports(in: text) where module != target.moduleName {
          if let dependency = byModule[module], !imported.contains(dependency.name) {
            imported.append(dependency.name)
          }
        }
      }
      let declared = target.dependencies.filter { names.contains($0) }
      for name in imported where !declared.contains(name) {
        problems.append("\(target.name) imports \(name), undeclared")
      }
      for name in declared where !imported.contains(name) {
        let isExecutable = targets.first { $0.name == name }?.kind == "executableTarget"
        if isExecutable {
          if texts.contains(where: { $0.contains("\"\(name)\"") }) { continue }
          problems.append("\(target.name) declares \(name), not imported or named")
        } else {
          problems.append("\(target.name) declares \(name), not imported")
        }
      }
    }
    return problems
  }

  /// The text of every Swift file of `target` in this repository, outside its `exclude:`
  /// paths.
  public static func swiftFiles(of target: Target) -> [String] {
    let directory = Fixtures.repositoryRoot.appendingPathComponent(target.path)
    let excluded = target.exclude.map { directory.appendingPathComponent($0).standardized.path }
    guard
      let walker = FileManager.default.enumerator(
        at: directory, includingPropertiesForKeys: nil)
    else { return [] }
    var texts: [String] = []
    for case let url as URL in walker where url.pathExtension == "swift" {
      let path = url.standardized.path
      guard !excluded.contains(where: { path == $0 || path.hasPrefix($0 + "/") }) else {
        continue
      }
      if let text = try? String(contentsOf: url, encoding: .utf8) { texts.append(text) }
    }
    return texts
  }

  /// The modules `text` imports (`import X`, `@testable import X`, `internal import X`,
  /// `import struct X.Y`), outside multi-line string literals.
  public static func imports(in text: String) -> [String] {
    var modules: [String] = []
    var inString = false
    let kinds: Set<Substring> = [
      "typealias", "struct", "class", "enum", "protocol", "let", "var", "func",
    ]
    let modifiers: Set<Substring> = ["public", "package", "internal", "fileprivate", "private"]
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      if line.components(separatedBy: "\"\"\"").count % 2 == 0 { inString.toggle() }
      guard !inString else { continue }
      var words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })[...]
      while let first = words.first, first.hasPrefix("@") || modifiers.contains(first) {
        words = words.dropFirst()
      }
      guard words.first == "import", words.count >= 2 else { continue }
      var module = words[words.startIndex + 1]
      if kinds.contains(module), words.count >= 3 { module = words[words.startIndex + 2] }
      modules.append(String(module.prefix { $0 != "." && $0 != ";" }))
    }
    return modules
  }

  /// `manifest` without `//` comments (outside string literals).
  private static func withoutComments(_ manifest: String) -> String {
    var result = ""
    for line in manifest.split(separator: "\n", omittingEmptySubsequences: false) {
      var inString = false
      var previous: Character = " "
      var kept = ""
      for character in line {
        if character == "\"" { inString.toggle() }
        if !inString, character == "/", previous == "/" {
          kept.removeLast()
          break
        }
        kept.append(character)
        previous = character
      }
      result += kept + "\n"
    }
    return result
  }

  /// The index of the bracket or parenthesis that closes the one at `open`.
  private static func closing(_ text: [Character], from open: Int) -> Int {
    var depth = 0
    var inString = false
    var index = open
    while index < text.count {
      let character = text[index]
      if character == "\"" { inString.toggle() }
      if !inString {
        if character == "(" || character == "[" { depth += 1 }
        if character == ")" || character == "]" {
          depth -= 1
          if depth == 0 { return index }
        }
      }
      index += 1
    }
    return text.count - 1
  }

  /// The index of the argument `label` of the call whose parenthesis is at `open`: at the
  /// call's own level, not inside a nested call or list.
  private static func argument(
    _ label: [Character], of text: [Character], from open: Int
  ) -> Int? {
    var depth = 0
    var inString = false
    for index in open..<text.count {
      let character = text[index]
      if character == "\"" { inString.toggle() }
      guard !inString else { continue }
      if depth == 1, matches(label, in: text, at: index) { return index }
      if character == "(" || character == "[" { depth += 1 }
      if character == ")" || character == "]" {
        depth -= 1
        if depth == 0 { return nil }
      }
    }
    return nil
  }

  private static func matches(_ word: [Character], in text: [Character], at index: Int) -> Bool {
    index + word.count <= text.count && Array(text[index..<index + word.count]) == word
  }

  private static func find(_ word: [Character], in text: [Character], from start: Int) -> Int? {
    (start..<max(start, text.count)).first { matches(word, in: text, at: $0) }
  }

  /// The first string literal after `label` in `body` (at its own level or deeper).
  private static func firstString(after label: String, in body: String) -> String? {
    guard let range = body.range(of: label) else { return nil }
    return stringLiterals(in: body[range.upperBound...]).first
  }

  /// The string literals of the list after `label`, or none when there is no such list.
  private static func strings(inList label: String, of body: String) -> [String] {
    guard let range = body.range(of: label) else { return [] }
    let text = Array(body[range.upperBound...])
    guard let open = text.firstIndex(where: { !$0.isWhitespace }), text[open] == "[" else {
      return []
    }
    return stringLiterals(in: String(text[open...closing(text, from: open)])[...])
  }

  private static func stringLiterals(in text: Substring) -> [String] {
    text.split(separator: "\"", omittingEmptySubsequences: false).enumerated()
      .filter { $0.offset % 2 == 1 }.map { String($0.element) }
  }
}
