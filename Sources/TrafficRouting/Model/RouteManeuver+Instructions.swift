import Foundation

extension RouteManeuver {
  /// The languages instructions are written in, by ISO 639-1 code.
  public static let instructionLanguages = ["en", "de", "fr", "it", "es"]

  /// The instruction in the language of a BCP 47 tag (`de-DE`: German), English for a
  /// language without a phrasebook: "Turn right onto Chausseestraße. Go for 320 m.",
  /// "Biegen Sie rechts ab auf Chausseestraße. Fahren Sie 320 m weiter."
  public func instruction(language tag: String?) -> String {
    let code = tag.flatMap { $0.split(separator: "-").first }.map { $0.lowercased() }
    let book = Phrasebook.books[code ?? "en"] ?? Phrasebook.english
    return book.instruction(self)
  }

  /// The phrases of one language: each maneuver's sentence, then how far to go.
  struct Phrasebook: Sendable {
    /// North, northeast, ... clockwise.
    var compass: [String]
    var left: String
    var right: String
    /// `Head {compass}`, then ` on {road}`.
    var head: String
    var on: String
    /// Before a road the maneuver leads onto.
    var onto: String
    var continueOn: String
    var continueStraight: String
    /// `Turn {how}{side}`: the side's words by severity (light, quite, heavy).
    var turn: @Sendable (_ side: String, _ severity: Severity?) -> String
    var uTurn: String
    var ramp: @Sendable (_ side: String) -> String
    var exit: @Sendable (_ side: String) -> String
    var roundabout: @Sendable (_ exit: Int) -> String
    var arriveAt: String
    var arrived: String
    /// `Go for {distance}.` around the distance.
    var goFor: @Sendable (_ distance: String) -> String
    /// The decimal separator of kilometers.
    var decimal: String

    func instruction(_ maneuver: RouteManeuver) -> String {
      let road = maneuver.road?.label
      let onto = road.map { self.onto + $0 } ?? ""
      let side = maneuver.direction == .left ? left : right
      let sentence: String
      switch maneuver.action {
      case .depart:
        let heading = maneuver.headingInDegrees.map { " " + compass[RouteManeuver.point($0)] }
        sentence = head + (heading ?? "") + (road.map { on + $0 } ?? "")
      case .arrive:
        return road.map { arriveAt + $0 + "." } ?? arrived
      case .continue:
        sentence = road.map { continueOn + $0 } ?? continueStraight
      case .turn:
        sentence = turn(side, maneuver.severity) + onto
      case .uTurn:
        sentence = uTurn + (road.map { on + $0 } ?? "")
      case .ramp:
        sentence = ramp(side) + onto
      case .exit:
        sentence = exit(side) + onto
      case .roundaboutExit:
        sentence = roundabout(maneuver.exit ?? 1) + onto
      }
      return sentence + ". " + goFor(distance(maneuver.lengthInMeters)) + "."
    }

    /// Meters as an instruction says them: to 10 m below a kilometer, then to 100 m.
    func distance(_ meters: Double) -> String {
      if meters < 995 { return "\(max(10, Int((meters / 10).rounded()) * 10)) m" }
      let tenths = Int((meters / 100).rounded())
      return "\(tenths / 10)\(decimal)\(tenths % 10) km"
    }

    static let english = Phrasebook(
      compass: [
        "north", "northeast", "east", "southeast", "south", "southwest", "west", "northwest",
      ],
      left: "left", right: "right", head: "Head", on: " on ", onto: " onto ",
      continueOn: "Continue on ", continueStraight: "Continue straight",
      turn: { side, severity in
        switch severity {
        case .light: return "Turn slightly \(side)"
        case .heavy: return "Turn sharply \(side)"
        default: return "Turn \(side)"
        }
      },
      uTurn: "Make a U-turn", ramp: { "Take the ramp on the \($0)" },
      exit: { "Take the exit on the \($0)" },
      roundabout: { "At the roundabout, take the \(RouteManeuver.ordinal($0)) exit" },
      arriveAt: "Arrive at ", arrived: "Arrive at your destination.",
      goFor: { "Go for \($0)" }, decimal: ".")

    static let books: [String: Phrasebook] = [
      "en": english,
      "de": Phrasebook(
        compass: [
          "Norden", "Nordosten", "Osten", "Südosten", "Süden", "Südwesten", "Westen", "Nordwesten",
        ],
        left: "links", right: "rechts", head: "Fahren Sie Richtung", on: " auf ", onto: " auf ",
        continueOn: "Fahren Sie weiter auf ", continueStraight: "Fahren Sie geradeaus weiter",
        turn: { side, severity in
          switch severity {
          case .light: return "Biegen Sie leicht \(side) ab"
          case .heavy: return "Biegen Sie scharf \(side) ab"
          default: return "Biegen Sie \(side) ab"
          }
        },
        uTurn: "Wenden Sie", ramp: { "Nehmen Sie die Auffahrt \($0)" },
        exit: { "Nehmen Sie die Ausfahrt \($0)" },
        roundabout: { "Nehmen Sie im Kreisverkehr die \($0). Ausfahrt" },
        arriveAt: "Sie erreichen ", arrived: "Sie haben Ihr Ziel erreicht.",
        goFor: { "Fahren Sie \($0) weiter" }, decimal: ","),
      "fr": Phrasebook(
        compass: [
          "du nord", "du nord-est", "de l'est", "du sud-est", "du sud", "du sud-ouest",
          "de l'ouest",
          "du nord-ouest",
        ],
        left: "gauche", right: "droite", head: "Prenez la direction", on: " sur ",
        onto: " sur ", continueOn: "Continuez sur ", continueStraight: "Continuez tout droit",
        turn: { side, severity in
          switch severity {
          case .light: return "Tournez légèrement à \(side)"
          case .heavy: return "Tournez franchement à \(side)"
          default: return "Tournez à \(side)"
          }
        },
        uTurn: "Faites demi-tour", ramp: { "Prenez la bretelle à \($0)" },
        exit: { "Prenez la sortie à \($0)" },
        roundabout: { "Au rond-point, prenez la \($0 == 1 ? "1re" : "\($0)e") sortie" },
        arriveAt: "Vous arrivez à ", arrived: "Vous êtes arrivé à destination.",
        goFor: { "Roulez sur \($0)" }, decimal: ","),
      "it": Phrasebook(
        compass: ["nord", "nord-est", "est", "sud-est", "sud", "sud-ovest", "ovest", "nord-ovest"],
        left: "sinistra", right: "destra", head: "Procedi in direzione", on: " su ", onto: " su ",
        continueOn: "Continua su ", continueStraight: "Prosegui dritto",
        turn: { side, severity in
          switch severity {
          case .light: return "Svolta leggermente a \(side)"
          case .heavy: return "Svolta decisamente a \(side)"
          default: return "Svolta a \(side)"
          }
        },
        uTurn: "Fai inversione a U", ramp: { "Prendi la rampa a \($0)" },
        exit: { "Prendi l'uscita a \($0)" },
        roundabout: { "Alla rotonda, prendi la \($0)ª uscita" },
        arriveAt: "Arrivo a ", arrived: "Sei arrivato a destinazione.",
        goFor: { "Prosegui per \($0)" }, decimal: ","),
      "es": Phrasebook(
        compass: ["norte", "noreste", "este", "sureste", "sur", "suroeste", "oeste", "noroeste"],
        left: "izquierda", right: "derecha", head: "Diríjase hacia el", on: " por ",
        onto: " hacia ", continueOn: "Continúe por ", continueStraight: "Continúe recto",
        turn: { side, severity in
          switch severity {
          case .light: return "Gire ligeramente a la \(side)"
          case .heavy: return "Gire bruscamente a la \(side)"
          default: return "Gire a la \(side)"
          }
        },
        uTurn: "Cambie de sentido", ramp: { "Tome la rampa de la \($0)" },
        exit: { "Tome la salida de la \($0)" },
        roundabout: { "En la rotonda, tome la \($0).ª salida" },
        arriveAt: "Ha llegado a ", arrived: "Ha llegado a su destino.",
        goFor: { "Siga durante \($0)" }, decimal: ","),
    ]
  }

  /// The compass point (0 north ... 7 northwest) of a heading.
  static func point(_ degrees: Double) -> Int {
    let normalized = (degrees.truncatingRemainder(dividingBy: 360) + 360)
      .truncatingRemainder(dividingBy: 360)
    return Int((normalized / 45).rounded()) % 8
  }
}
