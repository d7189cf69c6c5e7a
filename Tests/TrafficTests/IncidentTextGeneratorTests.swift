import Foundation
import Testing
import Traffic

@Suite struct IncidentTextGeneratorTests {
  @Test func germanExampleOfTheHereGuide() throws {
    let incident = try TrafficFixtures.sachsendamm().localized(to: .deDE)
    #expect(
      incident.description.text
        == "Berlin, Sachsendamm zwischen Gotenstraße und Priesterweg Fahrbahn auf einen "
        + "Fahrstreifen verengt, Staugefahr, Bauarbeiten, bis voraussichtlich 20.02.2028")
    #expect(incident.description.language == .deDE)
    #expect(
      incident.summary.text
        == "Fahrbahn auf einen Fahrstreifen verengt, Staugefahr, Bauarbeiten, "
        + "bis voraussichtlich 20.02.2028")
    #expect(
      incident.location.description == "Berlin, Sachsendamm zwischen Gotenstraße und Priesterweg")
  }

  @Test(arguments: [
    (
      "en-US",
      "Berlin, Sachsendamm between Gotenstraße and Priesterweg: reduced to one lane, "
        + "queues likely, construction, expected until 02/20/2028",
      "Reduced to one lane, queues likely, construction, expected until 02/20/2028"
    ),
    (
      "en-GB",
      "Berlin, Sachsendamm between Gotenstraße and Priesterweg: reduced to one lane, "
        + "queues likely, roadworks, expected until 20/02/2028",
      "Reduced to one lane, queues likely, roadworks, expected until 20/02/2028"
    ),
    (
      "de-DE",
      "Berlin, Sachsendamm zwischen Gotenstraße und Priesterweg Fahrbahn auf einen "
        + "Fahrstreifen verengt, Staugefahr, Bauarbeiten, bis voraussichtlich 20.02.2028",
      "Fahrbahn auf einen Fahrstreifen verengt, Staugefahr, Bauarbeiten, "
        + "bis voraussichtlich 20.02.2028"
    ),
    (
      "fr-FR",
      "Berlin, Sachsendamm entre Gotenstraße et Priesterweg : chaussée réduite à une voie, "
        + "risque de bouchons, travaux, fin prévue le 20/02/2028",
      "Chaussée réduite à une voie, risque de bouchons, travaux, fin prévue le 20/02/2028"
    ),
    (
      "es-ES",
      "Berlin, Sachsendamm entre Gotenstraße y Priesterweg: calzada reducida a un carril, "
        + "riesgo de retenciones, obras, previsto hasta el 20/02/2028",
      "Calzada reducida a un carril, riesgo de retenciones, obras, previsto hasta el 20/02/2028"
    ),
    (
      "it-IT",
      "Berlin, Sachsendamm tra Gotenstraße e Priesterweg: carreggiata ridotta a una corsia, "
        + "rischio di code, lavori in corso, previsto fino al 20/02/2028",
      "Carreggiata ridotta a una corsia, rischio di code, lavori in corso, "
        + "previsto fino al 20/02/2028"
    ),
    (
      "nl-NL",
      "Berlin, Sachsendamm tussen Gotenstraße en Priesterweg: rijbaan versmald tot één "
        + "rijstrook, kans op file, werkzaamheden, naar verwachting tot 20-02-2028",
      "Rijbaan versmald tot één rijstrook, kans op file, werkzaamheden, "
        + "naar verwachting tot 20-02-2028"
    ),
    (
      "pl-PL",
      "Berlin, Sachsendamm między Gotenstraße a Priesterweg: zwężenie do jednego pasa ruchu, "
        + "możliwe korki, roboty drogowe, przewidywane zakończenie 20.02.2028",
      "Zwężenie do jednego pasa ruchu, możliwe korki, roboty drogowe, "
        + "przewidywane zakończenie 20.02.2028"
    ),
  ])
  func everyLanguageWordsTheExample(tag: String, description: String, summary: String) throws {
    let language = try LanguageCode(tag)
    let incident = try TrafficFixtures.sachsendamm().localized(to: language)
    #expect(incident.description == LocalizedText(text: description, language: language))
    #expect(incident.summary == LocalizedText(text: summary, language: language))
  }

  /// A closed motorway with a queue and a delay, at a junction, one direction.
  func closedMotorway(cause: LocalizedText? = nil) throws -> TrafficIncident {
    try TrafficIncident(
      id: "a2", type: .accident, impact: .critical, isRoadClosed: true,
      location: TrafficLocation(point: try TrafficFixtures.place(52.07, 5.08)),
      details: TrafficIncidentDetails(
        countryCode: "NL", roadNumber: "A2", towards: "Utrecht", atJunction: "Oudenrijn",
        queueLengthInMeters: 1_450, delayInSeconds: 841, eventKind: .accident, cause: cause))
  }

  @Test(arguments: [
    ("en-US", "A2 towards Utrecht at Oudenrijn: closed, accident, queue of 1.5 km, delay 15 min"),
    (
      "de-DE",
      "A2 Richtung Utrecht Höhe Oudenrijn gesperrt, Unfall, 1,5 km Stau, Zeitverlust 15 min"
    ),
    (
      "nl-NL",
      "A2 richting Utrecht ter hoogte van Oudenrijn: afgesloten, ongeval, 1,5 km file, "
        + "vertraging 15 min"
    ),
    (
      "fr-FR",
      "A2 en direction de Utrecht au niveau de Oudenrijn : circulation interrompue, accident, "
        + "bouchon de 1,5 km, retard de 15 min"
    ),
  ])
  func closureWithQueueAndDelay(tag: String, description: String) throws {
    let incident = try closedMotorway().localized(to: try LanguageCode(tag))
    #expect(incident.description.text == description)
  }

  @Test func lanesClosedWithoutTotalAndWithMoreLanesLeft() throws {
    func words(_ details: TrafficIncidentDetails, _ language: LanguageCode) throws -> String {
      try TrafficIncident(
        id: "l", type: .laneRestriction, impact: .minor,
        location: TrafficLocation(point: try TrafficFixtures.place(50, 8)), details: details
      ).localized(to: language).description.text
    }
    #expect(
      try words(TrafficIncidentDetails(roadNumber: "A5", lanesClosed: 2), .enUS)
        == "A5: 2 lanes closed, lane restriction")
    #expect(
      try words(TrafficIncidentDetails(roadNumber: "A5", lanesClosed: 1), .deDE)
        == "A5 ein Fahrstreifen gesperrt, Fahrstreifensperrung")
    #expect(
      try words(TrafficIncidentDetails(roadNumber: "A5", lanesClosed: 1, totalLanes: 3), .itIT)
        == "A5: carreggiata ridotta a 2 corsie, restringimento di carreggiata")
    #expect(
      try words(
        TrafficIncidentDetails(roadName: "Rue de Rivoli", lanesClosed: 2, totalLanes: 2), .frFR)
        == "Rue de Rivoli : circulation interrompue, restriction de voie")
    #expect(try words(TrafficIncidentDetails(), .esES) == "Restricción de carril")
    #expect(
      try words(TrafficIncidentDetails(area: "Kraków", fromJunction: "Rondo Mogilskie"), .plPL)
        == "Kraków, od Rondo Mogilskie: zamknięcie pasa ruchu")
  }

  @Test func datesUseTheIncidentsTimeZone() throws {
    // 23:30 UTC on the 20th is 00:30 on the 21st in Berlin.
    let late = TrafficFixtures.february20 + 11.5 * 3_600
    let berlin = try TrafficFixtures.sachsendamm(endTime: late).localized(to: .deDE)
    #expect(berlin.summary.text.hasSuffix("bis voraussichtlich 21.02.2028"))
  }

  @Test("without a zone from the source, dates are the local ones of where the incident is")
  func datesUseThePlacesTimeZone() throws {
    // 23:30 UTC on the 20th: the 21st in Berlin, still the 20th in London and New York.
    let late = TrafficFixtures.february20 + 11.5 * 3_600
    func words(
      _ latitude: Double, _ longitude: Double, _ language: LanguageCode
    ) throws
      -> String
    {
      try TrafficIncident(
        id: "u", type: .construction, impact: .low, endTime: late,
        location: TrafficLocation(point: try TrafficFixtures.place(latitude, longitude))
      ).localized(to: language).description.text
    }
    #expect(try words(52.48, 13.35, .deDE) == "Bauarbeiten, bis voraussichtlich 21.02.2028")
    #expect(try words(51.5, -0.12, .enGB) == "Roadworks, expected until 20/02/2028")
    // 05:30 UTC on the 21st is still the 20th in Los Angeles, already the 21st in Berlin.
    let early = late + 6 * 3_600
    let angeles = try TrafficIncident(
      id: "v", type: .construction, impact: .low, endTime: early,
      location: TrafficLocation(point: try TrafficFixtures.place(34.05, -118.24))
    ).localized(to: .enUS)
    #expect(angeles.description.text == "Construction, expected until 02/20/2028")
  }

  @Test func withoutALanguageTheCountrysLanguageIsUsed() throws {
    let german = try TrafficFixtures.sachsendamm().localized(to: nil)
    #expect(german.description.language == .deDE)
    #expect(german.description.text.hasPrefix("Berlin, Sachsendamm zwischen"))
    let dutch = try closedMotorway().localized(to: nil)
    #expect(dutch.description.language == .nlNL)
    #expect(dutch.description.text.hasPrefix("A2 richting Utrecht"))
  }

  @Test func anUnsupportedLanguageFallsBackToTheCountrysLanguage() throws {
    let czech = try LanguageCode("cs-CZ")
    let incident = try TrafficFixtures.sachsendamm().localized(to: czech)
    #expect(incident.description.language == .deDE)
    #expect(incident.summary.text.hasPrefix("Fahrbahn auf einen Fahrstreifen verengt"))
  }

  @Test func aRegionalVariantUsesItsLanguagesFile() throws {
    let incident = try TrafficFixtures.sachsendamm().localized(to: .deAT)
    #expect(incident.description.language == .deAT)
    #expect(incident.description.text.hasSuffix("bis voraussichtlich 20.02.2028"))
    #expect(IncidentTextGenerator.shared.supports(.deCH))
    #expect(!IncidentTextGenerator.shared.supports(try LanguageCode("cs")))
  }

  @Test func aSourceTextInTheRequestedLanguageIsReturnedAsIs() throws {
    let source = LocalizedText(
      text: "Baustelle am Sachsendamm, Gotenstraße – Priesterweg", language: .deDE)
    let incident = try TrafficFixtures.sachsendamm(sourceTexts: [source])
    let german = incident.localized(to: try LanguageCode("de"))
    #expect(german.description == source)
    #expect(german.summary.text.hasPrefix("Fahrbahn auf einen Fahrstreifen verengt"))
    let english = incident.localized(to: .enGB)
    #expect(english.description.language == .enGB)
    #expect(english.description.text.hasPrefix("Berlin, Sachsendamm between"))
  }

  @Test func sourceTextInAnUnsupportedLanguageIsKept() throws {
    let czech = try LanguageCode("cs-CZ")
    let source = LocalizedText(text: "Dopravní nehoda na D1", language: czech)
    let incident = try TrafficIncident(
      id: "d1", type: .accident, impact: .major,
      location: TrafficLocation(point: try TrafficFixtures.place(49.6, 15.6)),
      details: TrafficIncidentDetails(countryCode: "CZ", roadNumber: "D1"),
      sourceTexts: [source])
    let asked = incident.localized(to: czech)
    #expect(asked.description == source)
    #expect(asked.summary == source)
    // Without a language: the country's language (Czech) has the source text.
    #expect(incident.localized(to: nil).description == source)
    // A bundled language is worded.
    #expect(incident.localized(to: .plPL).description.text == "D1: wypadek")
  }

  @Test func withoutCountryTheSourceTextsLanguageIsUsed() throws {
    let source = LocalizedText(text: "Travaux sur la D906", language: .frFR)
    let incident = try TrafficIncident(
      id: "d906", type: .construction, impact: .minor,
      location: TrafficLocation(point: try TrafficFixtures.place(45.7, 4.8)),
      details: TrafficIncidentDetails(roadNumber: "D906"), sourceTexts: [source])
    let localized = incident.localized(to: nil)
    #expect(localized.description == source)
    #expect(localized.summary == LocalizedText(text: "Travaux", language: .frFR))
  }

  @Test func withNothingToGoByUSEnglishIsUsed() throws {
    let incident = try TrafficIncident(
      id: "x", type: .weather, impact: .low,
      location: TrafficLocation(point: try TrafficFixtures.place(0, 0)),
      details: TrafficIncidentDetails(countryCode: "JP", eventKind: .fog))
    let localized = incident.localized(to: nil)
    #expect(localized.description == LocalizedText(text: "Fog", language: .enUS))
  }

  @Test func causeIsUsedOnlyInItsLanguage() throws {
    let cause = LocalizedText(text: "defecte vrachtwagen", language: .nlNL)
    let incident = try closedMotorway(cause: cause)
    #expect(
      incident.localized(to: .nlNL).summary.text
        == "Afgesloten, ongeval, defecte vrachtwagen, 1,5 km file, vertraging 15 min")
    #expect(
      incident.localized(to: .enUS).summary.text
        == "Closed, accident, queue of 1.5 km, delay 15 min")
  }

  @Test func placeholdersInNamesAreNotExpanded() throws {
    let incident = try TrafficIncident(
      id: "p", type: .roadClosure, impact: .major, isRoadClosed: true,
      location: TrafficLocation(point: try TrafficFixtures.place(0, 0)),
      details: TrafficIncidentDetails(area: "{details}", roadName: "{area} Street"))
    #expect(
      incident.localized(to: .enUS).description.text
        == "{details}, {area} Street: closed, road closure")
  }
}
