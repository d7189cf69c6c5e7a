/// A text together with the language it is written in, as in the HERE SDK.
public struct LocalizedText: Hashable, Sendable, Codable {
  /// The text.
  public var text: String
  /// The language of `text`.
  public var language: LanguageCode

  /// Creates a text in a language.
  ///
  /// - Parameters:
  ///   - text: The text.
  ///   - language: The language it is written in.
  public init(text: String, language: LanguageCode) {
    self.text = text
    self.language = language
  }
}
