import Foundation
import Testing
import Traffic

@Suite struct LanguageCodeTests {
  @Test(
    arguments: [
      ("de-de", "de-DE", "de", "DE"),
      ("DE-DE", "de-DE", "de", "DE"),
      ("en", "en", "en", nil),
      ("sr-latn-rs", "sr-Latn-RS", "sr", "RS"),
      ("es-419", "es-419", "es", "419"),
      ("de-CH-1996", "de-CH-1996", "de", "CH"),
      ("zh-yue-hk", "zh-yue-HK", "zh", "HK"),
      ("en-US-u-ca-gregory", "en-US-u-ca-gregory", "en", "US"),
      ("de-DE-x-Berlin", "de-DE-x-berlin", "de", "DE"),
      ("sl-rozaj-biske", "sl-rozaj-biske", "sl", nil),
    ] as [(String, String, String, String?)])
  func parsesAndNormalises(
    tag: String, identifier: String, language: String, region: String?
  )
    throws
  {
    let code = try LanguageCode(tag)
    #expect(code.identifier == identifier)
    #expect(code.languageSubtag == language)
    #expect(code.regionSubtag == region)
  }

  @Test func partsOfAFullTag() throws {
    let code = try LanguageCode("SR-latn-rs-1994")
    #expect(code.scriptSubtag == "Latn")
    #expect(code.variantSubtags == ["1994"])
    #expect(code.primaryLanguage == (try LanguageCode("sr")))
    #expect(code.description == "sr-Latn-RS-1994")
  }

  @Test(arguments: [
    "", "d", "de_DE", "de--DE", "-de", "de-", "toolonglanguage", "de-DE-ä", "x-private",
    "i-klingon", "de-a", "en-US-x", "1de", "de DE", "de-DE-abcdefghi",
  ])
  func rejectsMalformedTags(tag: String) {
    #expect(throws: TrafficModelError.self) { try LanguageCode(tag) }
  }

  @Test func errorNamesTheTagAndTheReason() {
    #expect(
      throws: TrafficModelError.malformedLanguageTag(
        "de_DE", reason: "subtag \"de_DE\" has characters other than ASCII letters and digits")
    ) { try LanguageCode("de_DE") }
  }

  @Test func staticMembersEqualParsedTags() throws {
    let pairs: [(LanguageCode, String)] = [
      (.enUS, "en-US"), (.enGB, "en-GB"), (.deDE, "de-DE"), (.deAT, "de-AT"), (.deCH, "de-CH"),
      (.frFR, "fr-FR"), (.frCA, "fr-CA"), (.esES, "es-ES"), (.itIT, "it-IT"), (.nlNL, "nl-NL"),
      (.plPL, "pl-PL"),
    ]
    for (member, tag) in pairs { #expect(member == (try LanguageCode(tag))) }
  }

  @Test func sameLanguageIgnoresRegion() {
    #expect(LanguageCode.deAT.hasSameLanguage(as: .deCH))
    #expect(!LanguageCode.deAT.hasSameLanguage(as: .nlNL))
  }

  @Test func codableAsAString() throws {
    let data = try JSONEncoder().encode([LanguageCode.deDE])
    #expect(String(decoding: data, as: UTF8.self) == "[\"de-DE\"]")
    let decoded = try JSONDecoder().decode([LanguageCode].self, from: Data("[\"fr-ca\"]".utf8))
    #expect(decoded == [.frCA])
    #expect(throws: (any Error).self) {
      try JSONDecoder().decode([LanguageCode].self, from: Data("[\"fr_CA\"]".utf8))
    }
  }
}
