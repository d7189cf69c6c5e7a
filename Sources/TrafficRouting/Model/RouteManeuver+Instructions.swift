import Foundation
import Traffic

extension RouteManeuver {
  /// The instruction in the language of a BCP 47 tag (`de-DE`: German), English for a
  /// language without texts: "Turn right onto Chausseestraße. Go for 320 m.", "Biegen Sie
  /// rechts ab auf Chausseestraße. Fahren Sie 320 m weiter."
  ///
  /// The words come from the same catalogs as incident descriptions (Traffic's
  /// `Resources/Localization`, keys `maneuver.*`): a sentence per action with and without
  /// the road (`maneuver.turn.light.road`: "Turn slightly {side} onto {road}"), the sides,
  /// the eight compass points, ordinals, and `maneuver.goFor` around the distance.
  public func instruction(language tag: String?) -> String {
    instruction(in: Self.catalog(for: tag))
  }

  /// The English catalog, which every other falls back on key by key.
  static let englishCatalog = (try? LanguageCode("en")).flatMap {
    TextCatalogs.bundled.catalog(for: $0)
  }

  /// The catalog of a BCP 47 tag, else English (looked up once for all the instructions of
  /// an answer).
  static func catalog(for tag: String?) -> TextCatalog? {
    tag.flatMap { try? LanguageCode($0) }.flatMap { TextCatalogs.bundled.catalog(for: $0) }
      ?? englishCatalog
  }

  /// The instruction in the words of `catalog`.
  func instruction(in catalog: TextCatalog?) -> String {
    guard let catalog else { return "" }
    let english = Self.englishCatalog
    func text(_ key: String) -> String {
      catalog.text(key) ?? english?.text(key) ?? key
    }
    let roadLabel = road?.label
    var key: String
    switch action {
    case .turn: key = "maneuver.turn.\((severity ?? .quite).rawValue)"
    // A departure whose heading is not known (a stretch of no length) says no compass point.
    case .depart where headingInDegrees == nil: key = "maneuver.continue"
    default: key = "maneuver.\(action.rawValue)"
    }
    if roadLabel != nil { key += ".road" }
    var values: [String: String] = [
      "side": text(direction == .left ? "maneuver.side.left" : "maneuver.side.right"),
      "road": roadLabel ?? "",
      "compass": text("maneuver.compass.\(Self.point(headingInDegrees ?? 0))"),
    ]
    if let exit {
      values["ordinal"] =
        catalog.text("maneuver.ordinal.\(exit)")
        ?? text("maneuver.ordinal").replacingOccurrences(of: "{n}", with: "\(exit)")
    }
    let sentence = Self.fill(text(key), values)
    if action == .arrive { return sentence }
    let goFor = text("maneuver.goFor")
    // A stretch of no length (a route from a place to itself) goes for nothing, which "Go
    // for 10 m" would lengthen: the sentence alone, ended as the catalog ends it there.
    if lengthInMeters < 0.5, let end = goFor.range(of: "{sentence}")?.upperBound {
      return sentence + goFor[end...].prefix { !$0.isWhitespace }
    }
    return Self.fill(
      goFor,
      [
        "sentence": sentence,
        "distance": Self.distance(lengthInMeters, decimal: catalog.decimalSeparator),
      ])
  }

  /// `template` with each `{name}` replaced by its value.
  static func fill(_ template: String, _ values: [String: String]) -> String {
    var text = template
    for (name, value) in values { text = text.replacingOccurrences(of: "{\(name)}", with: value) }
    return text
  }

  /// Meters as an instruction says them: to 10 m below a kilometer, then to 100 m.
  static func distance(_ meters: Double, decimal: String) -> String {
    if meters < 995 { return "\(max(10, Int((meters / 10).rounded()) * 10)) m" }
    let tenths = Int((meters / 100).rounded())
    return "\(tenths / 10)\(decimal)\(tenths % 10) km"
  }

  /// The compass point (0 north ... 7 northwest) of a heading.
  static func point(_ degrees: Double) -> Int {
    let normalized = (degrees.truncatingRemainder(dividingBy: 360) + 360)
      .truncatingRemainder(dividingBy: 360)
    return Int((normalized / 45).rounded()) % 8
  }
}
