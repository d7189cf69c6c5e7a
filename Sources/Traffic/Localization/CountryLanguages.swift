/// The language traffic messages are usually written in, per country (ISO 3166-1 alpha-2).
///
/// Used to pick the language of descriptions when a query asks for none. For countries with
/// several official languages the one most of the road network uses is chosen (Belgium:
/// Dutch, Switzerland: German); a source text in another of them is still preferred when the
/// source wrote one (see `IncidentTextGenerator`).
enum CountryLanguages {
  static func language(forCountryCode code: String) -> LanguageCode? {
    guard let tag = tags[code.uppercased()] else { return nil }
    return try? LanguageCode(tag)
  }

  private static let tags: [String: String] = [
    "AD": "ca-AD", "AR": "es-AR", "AT": "de-AT", "AU": "en-AU", "BE": "nl-BE", "BG": "bg-BG",
    "BO": "es-BO", "BR": "pt-BR", "CA": "en-CA", "CH": "de-CH", "CL": "es-CL", "CO": "es-CO",
    "CR": "es-CR", "CY": "el-CY", "CZ": "cs-CZ", "DE": "de-DE", "DK": "da-DK", "EC": "es-EC",
    "EE": "et-EE", "ES": "es-ES", "FI": "fi-FI", "FR": "fr-FR", "GB": "en-GB", "GR": "el-GR",
    "GT": "es-GT", "HR": "hr-HR", "HU": "hu-HU", "IE": "en-IE", "IN": "en-IN", "IS": "is-IS",
    "IT": "it-IT", "JP": "ja-JP", "KR": "ko-KR", "LI": "de-LI", "LT": "lt-LT", "LU": "fr-LU",
    "LV": "lv-LV", "MC": "fr-MC", "MT": "mt-MT", "MX": "es-MX", "NL": "nl-NL", "NO": "nb-NO",
    "NZ": "en-NZ", "PE": "es-PE", "PL": "pl-PL", "PT": "pt-PT", "PY": "es-PY", "RO": "ro-RO",
    "RS": "sr-RS", "SE": "sv-SE", "SI": "sl-SI", "SK": "sk-SK", "SM": "it-SM", "TR": "tr-TR",
    "UA": "uk-UA", "US": "en-US", "UY": "es-UY", "VA": "it-VA", "VE": "es-VE", "ZA": "en-ZA",
  ]
}
