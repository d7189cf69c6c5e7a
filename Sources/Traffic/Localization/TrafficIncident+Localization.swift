extension TrafficIncident {
  /// A copy whose `description` and `summary` are in `language`, worded from the structured
  /// details or taken from a source text in that language.
  ///
  /// Without a language (or with one that is neither bundled nor in a source text), the
  /// language of the incident's country is used, then that of its source texts. See
  /// `IncidentTextGenerator` for the exact rules.
  ///
  /// - Parameter language: The language asked for; `nil` for the incident's country's.
  /// - Returns: The localised incident.
  public func localized(to language: LanguageCode?) -> TrafficIncident {
    IncidentTextGenerator.shared.localized(self, to: language)
  }
}
