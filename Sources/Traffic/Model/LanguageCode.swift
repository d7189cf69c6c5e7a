import Synchronization

/// A language, written as a BCP 47 language tag (RFC 5646): `de-DE`, `en-GB`, `sr-Latn-RS`.
///
/// Any well-formed tag is accepted: a language subtag (with optional extended language
/// subtags), then optionally a script, a region, variants, extensions and a private-use part.
/// Tags are stored in the case RFC 5646 §2.1.1 recommends — language lowercase, script
/// titlecase, region uppercase, everything else lowercase — so `"de-de"` and `"DE-DE"` are
/// both `de-DE` and compare equal. Tags that are only private use (`x-whatever`) and the
/// irregular grandfathered tags (`i-klingon`) are rejected, since they name no language this
/// library could speak.
///
/// The HERE SDK models languages as a closed enum (`LanguageCode.deDe`); the static members
/// here (`LanguageCode.deDE`, `.enUS`, ...) give the same convenience while any other tag can
/// still be parsed.
public struct LanguageCode: Hashable, Sendable, CustomStringConvertible {
  /// The parsed tag, in one shared object: a language code is one reference wide, so the
  /// millions of texts a large store holds do not each carry six strings and arrays.
  private final class Tag: Sendable {
    let identifier: String
    let languageSubtag: String
    let extendedLanguageSubtags: [String]
    let scriptSubtag: String?
    let regionSubtag: String?
    let variantSubtags: [String]

    init(
      identifier: String, languageSubtag: String, extendedLanguageSubtags: [String] = [],
      scriptSubtag: String? = nil, regionSubtag: String?, variantSubtags: [String] = []
    ) {
      self.identifier = identifier
      self.languageSubtag = languageSubtag
      self.extendedLanguageSubtags = extendedLanguageSubtags
      self.scriptSubtag = scriptSubtag
      self.regionSubtag = regionSubtag
      self.variantSubtags = variantSubtags
    }
  }

  private let tag: Tag

  /// The normalised tag, e.g. `"de-DE"`.
  public var identifier: String { tag.identifier }
  /// The primary language subtag, lowercase: `"de"` for `de-DE`.
  public var languageSubtag: String { tag.languageSubtag }
  /// Extended language subtags (`"yue"` in `zh-yue-HK`), lowercase; usually empty.
  public var extendedLanguageSubtags: [String] { tag.extendedLanguageSubtags }
  /// The script subtag, titlecase (`"Latn"` in `sr-Latn-RS`), when present.
  public var scriptSubtag: String? { tag.scriptSubtag }
  /// The region subtag, uppercase letters or three digits (`"DE"`, `"419"`), when present.
  public var regionSubtag: String? { tag.regionSubtag }
  /// Variant subtags, lowercase (`"1996"` in `de-DE-1996`).
  public var variantSubtags: [String] { tag.variantSubtags }

  /// Equal when the normalised tags are.
  public static func == (lhs: LanguageCode, rhs: LanguageCode) -> Bool {
    lhs.tag === rhs.tag || lhs.tag.identifier == rhs.tag.identifier
  }

  /// Hashes the normalised tag.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(tag.identifier)
  }

  /// Parses and normalises a BCP 47 language tag.
  ///
  /// - Parameter tag: A tag such as `"de-DE"`, `"en"`, `"sr-Latn-RS"`, `"de-CH-1996"`; any
  ///   letter case.
  /// - Throws: `TrafficModelError.malformedLanguageTag` naming the subtag that is wrong.
  /// - Complexity: O(n) in the length of the tag.
  public init(_ tag: String) throws(TrafficModelError) {
    if let known = Self.parsed.withLock({ $0[tag] }) {
      self.tag = known
      return
    }
    let parsed = try Self.parse(tag)
    Self.parsed.withLock { if $0.count < Self.parsedLimit { $0[tag] = parsed } }
    self.tag = parsed
  }

  /// Tags parsed before, by the text they were parsed from: feeds name a handful of
  /// languages in a million texts, and each is then parsed once and held once (a parsed tag
  /// is about a hundred bytes; a million incidents decoded from a feed held one each).
  private static let parsed = Mutex<[String: Tag]>([:])
  /// The most tags kept in `parsed` (others are parsed each time).
  private static let parsedLimit = 1_024

  private static func parse(_ tag: String) throws(TrafficModelError) -> Tag {
    func fail(_ reason: String) -> TrafficModelError { .malformedLanguageTag(tag, reason: reason) }
    guard !tag.isEmpty else { throw fail("the tag is empty") }
    let subtags = tag.split(separator: "-", omittingEmptySubsequences: false).map(String.init)
    for subtag in subtags {
      guard !subtag.isEmpty else { throw fail("empty subtag (two hyphens or a hyphen at an end)") }
      guard subtag.count <= 8 else {
        throw fail("subtag \"\(subtag)\" is longer than 8 characters")
      }
      guard subtag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
        throw fail("subtag \"\(subtag)\" has characters other than ASCII letters and digits")
      }
    }
    var index = 0
    let language = subtags[0].lowercased()
    guard Self.isAlpha(language), (2...8).contains(language.count) else {
      if language == "x" || language == "i" {
        throw fail("private-use and grandfathered tags name no language")
      }
      throw fail("language subtag \"\(subtags[0])\" must be 2 to 8 letters")
    }
    index = 1
    var extlangs: [String] = []
    if language.count <= 3 {
      while index < subtags.count, extlangs.count < 3, subtags[index].count == 3,
        Self.isAlpha(subtags[index])
      {
        extlangs.append(subtags[index].lowercased())
        index += 1
      }
    }
    var script: String?
    if index < subtags.count, subtags[index].count == 4, Self.isAlpha(subtags[index]) {
      let lower = subtags[index].lowercased()
      script = lower.prefix(1).uppercased() + lower.dropFirst()
      index += 1
    }
    var region: String?
    if index < subtags.count {
      let candidate = subtags[index]
      if (candidate.count == 2 && Self.isAlpha(candidate))
        || (candidate.count == 3 && candidate.allSatisfy(\.isNumber))
      {
        region = candidate.uppercased()
        index += 1
      }
    }
    var variants: [String] = []
    while index < subtags.count {
      let candidate = subtags[index].lowercased()
      let isVariant =
        (5...8).contains(candidate.count)
        || (candidate.count == 4 && candidate.first?.isNumber == true)
      guard isVariant else { break }
      variants.append(candidate)
      index += 1
    }
    var rest: [String] = []
    while index < subtags.count {
      let singleton = subtags[index].lowercased()
      guard singleton.count == 1 else {
        throw fail("subtag \"\(subtags[index])\" is not valid at this position")
      }
      rest.append(singleton)
      index += 1
      let isPrivateUse = singleton == "x"
      let minimum = isPrivateUse ? 1 : 2
      var count = 0
      while index < subtags.count, subtags[index].count >= minimum,
        isPrivateUse || subtags[index].count > 1
      {
        rest.append(subtags[index].lowercased())
        index += 1
        count += 1
      }
      guard count > 0 else {
        throw fail("\(isPrivateUse ? "private-use" : "extension") \"\(singleton)\" has no subtags")
      }
      if isPrivateUse, index < subtags.count {
        throw fail("nothing may follow the private-use part")
      }
    }
    var parts = [language] + extlangs
    if let script { parts.append(script) }
    if let region { parts.append(region) }
    parts += variants + rest
    return Tag(
      identifier: parts.joined(separator: "-"), languageSubtag: language,
      extendedLanguageSubtags: extlangs, scriptSubtag: script, regionSubtag: region,
      variantSubtags: variants)
  }

  /// A tag known to be well-formed and already normalised (the static members).
  private init(known language: String, region: String?) {
    tag = Tag(
      identifier: region.map { "\(language)-\($0)" } ?? language, languageSubtag: language,
      regionSubtag: region)
  }

  private static func isAlpha(_ text: String) -> Bool {
    text.allSatisfy { $0.isASCII && $0.isLetter }
  }

  /// The language alone, without script, region or variants: `de` for `de-CH-1996`.
  public var primaryLanguage: LanguageCode {
    LanguageCode(known: languageSubtag, region: nil)
  }

  /// Whether both tags name the same primary language (`de-AT` and `de-DE` do).
  public func hasSameLanguage(as other: LanguageCode) -> Bool {
    languageSubtag == other.languageSubtag
  }

  /// The normalised tag, as `identifier`.
  public var description: String { identifier }

  /// English as written in the United States.
  public static let enUS = LanguageCode(known: "en", region: "US")
  /// English as written in the United Kingdom.
  public static let enGB = LanguageCode(known: "en", region: "GB")
  /// English as written in Ireland.
  public static let enIE = LanguageCode(known: "en", region: "IE")
  /// English as written in Canada.
  public static let enCA = LanguageCode(known: "en", region: "CA")
  /// English as written in Australia.
  public static let enAU = LanguageCode(known: "en", region: "AU")
  /// German as written in Germany.
  public static let deDE = LanguageCode(known: "de", region: "DE")
  /// German as written in Austria.
  public static let deAT = LanguageCode(known: "de", region: "AT")
  /// German as written in Switzerland.
  public static let deCH = LanguageCode(known: "de", region: "CH")
  /// French as written in France.
  public static let frFR = LanguageCode(known: "fr", region: "FR")
  /// French as written in Canada.
  public static let frCA = LanguageCode(known: "fr", region: "CA")
  /// French as written in Belgium.
  public static let frBE = LanguageCode(known: "fr", region: "BE")
  /// French as written in Switzerland.
  public static let frCH = LanguageCode(known: "fr", region: "CH")
  /// Spanish as written in Spain.
  public static let esES = LanguageCode(known: "es", region: "ES")
  /// Spanish as written in Mexico.
  public static let esMX = LanguageCode(known: "es", region: "MX")
  /// Italian as written in Italy.
  public static let itIT = LanguageCode(known: "it", region: "IT")
  /// Italian as written in Switzerland.
  public static let itCH = LanguageCode(known: "it", region: "CH")
  /// Dutch as written in the Netherlands.
  public static let nlNL = LanguageCode(known: "nl", region: "NL")
  /// Dutch as written in Belgium (Flemish).
  public static let nlBE = LanguageCode(known: "nl", region: "BE")
  /// Polish as written in Poland.
  public static let plPL = LanguageCode(known: "pl", region: "PL")
  /// Portuguese as written in Portugal.
  public static let ptPT = LanguageCode(known: "pt", region: "PT")
  /// Portuguese as written in Brazil.
  public static let ptBR = LanguageCode(known: "pt", region: "BR")
  /// Czech as written in Czechia.
  public static let csCZ = LanguageCode(known: "cs", region: "CZ")
  /// Danish as written in Denmark.
  public static let daDK = LanguageCode(known: "da", region: "DK")
  /// Swedish as written in Sweden.
  public static let svSE = LanguageCode(known: "sv", region: "SE")
  /// Norwegian Bokmål as written in Norway.
  public static let nbNO = LanguageCode(known: "nb", region: "NO")
  /// Finnish as written in Finland.
  public static let fiFI = LanguageCode(known: "fi", region: "FI")
}

extension LanguageCode: Codable {
  /// Decodes a tag from a JSON string, validating and normalising it.
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    try self.init(container.decode(String.self))
  }

  /// Encodes the normalised tag as a string.
  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(identifier)
  }
}
