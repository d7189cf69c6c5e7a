import Codec
import Foundation

/// The texts of one language, read from `Resources/Localization/<tag>.json`: the words of
/// incident descriptions and of route instructions (`maneuver.*`, used by TrafficRouting).
///
/// A file holds `language` (its BCP 47 tag), optionally `inherits` (the tag of a file whose
/// texts it extends, as `en-GB` extends `en`), `datePattern` (`dd`, `MM` and `yyyy` stand for
/// the day, month and year), `decimalSeparator` and `texts`, a map from keys
/// (`consequence.roadClosed`, `type.accident`, ...) to templates with `{placeholders}`.
package struct TextCatalog: Sendable {
  package let language: LanguageCode
  let datePattern: String
  package let decimalSeparator: String
  let texts: [String: String]

  /// The template for `key`, or `nil` when the language file lacks it.
  package func text(_ key: String) -> String? { texts[key] }
}

/// Every bundled language, loaded once from the module's resources.
package struct TextCatalogs: Sendable {
  /// Catalogs by normalised tag of their file (`"en"`, `"en-GB"`, `"de"`).
  let byTag: [String: TextCatalog]
  /// Problems met while loading (a file that does not parse, a missing parent); empty when
  /// the resources are sound. A test asserts it stays empty.
  package let loadErrors: [String]

  /// The catalogs of the module's resources; read on first use, then kept.
  package static let bundled: TextCatalogs = {
    let folder = InstalledResources.locate("Localization") {
      Bundle.module.resourceURL?.appendingPathComponent("Localization")
    }
    let names = folder.flatMap { try? FileManager.default.contentsOfDirectory(atPath: $0.path) }
    guard let folder, let names else {
      return TextCatalogs(
        byTag: [:], loadErrors: ["the Localization resources are missing"])
    }
    let files = names.filter { $0.hasSuffix(".json") }.sorted()
    return load(from: files.map { folder.appendingPathComponent($0) })
  }()

  /// The catalog that speaks `language`: the one for its exact tag, else for its language
  /// and region, else for its language alone.
  package func catalog(for language: LanguageCode) -> TextCatalog? {
    if let exact = byTag[language.identifier] { return exact }
    if let region = language.regionSubtag,
      let regional = byTag["\(language.languageSubtag)-\(region)"]
    {
      return regional
    }
    return byTag[language.languageSubtag]
  }

  private struct File: Decodable {
    let language: String
    let inherits: String?
    let datePattern: String?
    let decimalSeparator: String?
    let texts: [String: String]
  }

  /// Reads the given files and resolves `inherits` chains.
  static func load(from urls: [URL]) -> TextCatalogs {
    var files: [String: File] = [:]
    var errors: [String] = []
    for url in urls {
      do {
        let file = try JSONDecoder().decode(File.self, from: Data(contentsOf: url))
        let tag = try LanguageCode(file.language).identifier
        files[tag] = file
      } catch {
        errors.append("\(url.lastPathComponent): \(error)")
      }
    }
    var catalogs: [String: TextCatalog] = [:]
    for (tag, file) in files {
      var chain = [file]
      var seen: Set<String> = [tag]
      var current = file
      while let parentTag = current.inherits {
        guard let parent = files[parentTag], seen.insert(parentTag).inserted else {
          errors.append("\(tag).json: inherits \"\(parentTag)\", which is missing or circular")
          break
        }
        chain.append(parent)
        current = parent
      }
      var texts: [String: String] = [:]
      for link in chain.reversed() { texts.merge(link.texts) { _, child in child } }
      guard let language = try? LanguageCode(tag),
        let datePattern = chain.lazy.compactMap(\.datePattern).first
      else {
        errors.append("\(tag).json: no datePattern")
        continue
      }
      catalogs[tag] = TextCatalog(
        language: language, datePattern: datePattern,
        decimalSeparator: chain.lazy.compactMap(\.decimalSeparator).first ?? ".",
        texts: texts)
    }
    return TextCatalogs(byTag: catalogs, loadErrors: errors.sorted())
  }
}
