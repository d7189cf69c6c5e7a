import Codec
import Foundation
import Traffic

extension DATEXIIPublisher {
  /// The record type of an incident and the detail elements it requires.
  struct RecordType {
    var name: String
    /// The cause written for a record whose type alone does not say it.
    var causeType: String?
    /// The type's own elements, in schema order, after the location.
    var details: [(String, String)] = []
    /// Whether the type is a `TrafficElement`, which may carry `trafficConstrictionType`.
    var isTrafficElement = false
    /// Whether `NetworkManagement` requires `complianceOption` first.
    var isNetworkManagement = false

    init(_ incident: TrafficIncident) {
      let kind = incident.details.eventKind
      switch (incident.type, kind) {
      case (.accident, _):
        self.init(
          "Accident",
          ("accidentType", kind == .multiVehicleAccident ? "multipleVehicleAccident" : "accident"),
          trafficElement: true)
      case (.congestion, _):
        let type: String?
        switch kind {
        case .stationaryTraffic: type = "stationaryTraffic"
        case .queuingTraffic: type = "queuingTraffic"
        case .slowTraffic: type = "slowTraffic"
        default: type = nil
        }
        self.init(name: "AbnormalTraffic", isTrafficElement: true)
        if let type { details.append(("abnormalTrafficType", type)) }
        if let queue = incident.details.queueLengthInMeters {
          details.append(("queueLength", String(Int(queue.rounded()))))
        }
      case (.construction, _):
        self.init(
          "MaintenanceWorks",
          ("roadMaintenanceType", kind == .maintenanceWork ? "maintenanceWork" : "roadworks"))
      case (.roadClosure, _):
        self.init(name: "RoadOrCarriagewayOrLaneManagement", isNetworkManagement: true)
        details = [("roadOrCarriagewayOrLaneManagementType", "roadClosed")]
      case (.laneRestriction, _):
        self.init(name: "RoadOrCarriagewayOrLaneManagement", isNetworkManagement: true)
        details = [("roadOrCarriagewayOrLaneManagementType", "laneClosures")]
      case (.disabledVehicle, _):
        self.init(
          "VehicleObstruction",
          ("vehicleObstructionType", kind == .vehicleFire ? "vehicleOnFire" : "brokenDownVehicle"),
          trafficElement: true)
      case (.roadHazard, .animalsOnRoad?):
        self.init(
          "AnimalPresenceObstruction", ("animalPresenceType", "animalsOnTheRoad"),
          trafficElement: true)
      case (.roadHazard, .wrongWayDriver?):
        self.init(
          "VehicleObstruction", ("vehicleObstructionType", "vehicleOnWrongCarriageway"),
          trafficElement: true)
      case (.roadHazard, _):
        let type: String
        switch kind {
        case .peopleOnRoad: type = "peopleOnRoadway"
        case .objectOnRoad: type = "objectOnTheRoad"
        default: type = "hazardsOnTheRoad"
        }
        self.init("GeneralObstruction", ("obstructionType", type), trafficElement: true)
      case (.weather, .flooding?):
        self.init(
          "EnvironmentalObstruction", ("environmentalObstructionType", "flooding"),
          trafficElement: true)
      case (.weather, .ice?):
        self.init(
          "WeatherRelatedRoadConditions", ("weatherRelatedRoadConditionType", "ice"),
          trafficElement: true)
      case (.weather, .snow?):
        self.init(
          "WeatherRelatedRoadConditions", ("weatherRelatedRoadConditionType", "snowOnTheRoad"),
          trafficElement: true)
      case (.weather, _):
        let type: String
        switch kind {
        case .fog: type = "fog"
        case .strongWinds: type = "strongWinds"
        default: type = "badWeather"
        }
        self.init("PoorEnvironmentConditions", ("poorEnvironmentType", type), trafficElement: true)
      case (.plannedEvent, _):
        self.init(
          "PublicEvent", ("publicEventType", kind == .demonstration ? "parade" : "majorEvent"),
          trafficElement: true)
      case (.other, .demonstration?):
        self.init(
          "DisturbanceActivity", ("disturbanceActivityType", "demonstration"),
          trafficElement: true)
      case (.massTransit, _):
        self.init(name: "GenericSituationRecord", causeType: "transitServiceDisruption")
        details = [("genericSituationRecordName", Self.name(incident))]
      case (.other, _), (.unknown, _):
        self.init(name: "GenericSituationRecord")
        details = [("genericSituationRecordName", Self.name(incident))]
      }
      // A closed road on a record that cannot say it (an operator action or a generic
      // record): a road closure, caused by what the incident is.
      if incident.isRoadClosed, !isTrafficElement,
        !(name == "RoadOrCarriagewayOrLaneManagement" && details.first?.1 == "roadClosed")
      {
        let cause = Self.causeType(of: incident.type)
        self.init(name: "RoadOrCarriagewayOrLaneManagement", isNetworkManagement: true)
        causeType = cause
        details = [("roadOrCarriagewayOrLaneManagementType", "roadClosed")]
      }
    }

    private init(_ name: String, _ detail: (String, String), trafficElement: Bool = false) {
      self.init(name: name, isTrafficElement: trafficElement)
      details = [detail]
    }

    private init(
      name: String, causeType: String? = nil, isTrafficElement: Bool = false,
      isNetworkManagement: Bool = false
    ) {
      self.name = name
      self.causeType = causeType
      self.isTrafficElement = isTrafficElement
      self.isNetworkManagement = isNetworkManagement
    }

    private static func name(_ incident: TrafficIncident) -> String {
      let summary = incident.summary.text
      return summary.isEmpty ? incident.type.rawValue : limited(summary)
    }

    /// The DATEX II cause of a closure for an incident of `type`.
    private static func causeType(of type: TrafficIncidentType) -> String? {
      switch type {
      case .construction: return "roadMaintenance"
      case .massTransit: return "transitServiceDisruption"
      case .laneRestriction: return "roadOrCarriagewayOrLaneManagement"
      default: return nil
      }
    }

    func writeDetails(_ incident: TrafficIncident, into xml: inout XMLWriter) {
      if isTrafficElement, incident.isRoadClosed {
        xml.element("sit:trafficConstrictionType", "roadBlocked")
      }
      if isNetworkManagement {
        xml.element("sit:complianceOption", "mandatory")
      }
      for (element, value) in details { xml.element("sit:" + element, value) }
    }
  }
}
