import Foundation
import Synchronization
import Traffic

/// The camera of a `MapView`: where it looks (a target), from how far (a zoom level or a
/// distance) and which way is up (a bearing), as in the HERE SDK. The projection is Web
/// Mercator; the camera always looks straight down (tilt is fixed at 0).
///
/// Zoom level and distance are two measures of the same thing: at zoom level `z` the world
/// is `256 × 2^z` pixels wide, and the distance is that of a camera with a vertical field of
/// view of 60° that sees exactly the view's height of ground at the target:
/// `distance = viewHeight × metersPerPixel / (2 tan 30°)`.
public final class MapCamera: Sendable {
  /// The smallest zoom level: the whole world in 256 pixels.
  public static let minimumZoomLevel: Double = 0
  /// The largest zoom level (about 2 cm per pixel at the equator).
  public static let maximumZoomLevel: Double = 22
  /// The vertical field of view behind `distanceToTargetInMeters`, degrees.
  public static let fieldOfViewInDegrees: Double = 60

  /// Where the camera is and looks.
  public struct State: Hashable, Sendable {
    /// The place in the middle of the view.
    public var targetCoordinates: GeoCoordinates
    /// The zoom level, 0...22.
    public var zoomLevel: Double
    /// The distance from the camera to the target, meters (see `MapCamera`).
    public var distanceToTargetInMeters: Double
    /// The direction that points up in the view, degrees clockwise from true north,
    /// 0..<360.
    public var bearingInDegrees: Double
    /// Always 0: the camera looks straight down.
    public var tiltInDegrees: Double { 0 }
  }

  private struct Pose: Sendable {
    var target: GeoCoordinates
    var zoom: Double
    var bearing: Double
  }

  private let viewHeight: Double
  private let pose: Mutex<Pose>

  init(viewHeight: Double) {
    self.viewHeight = viewHeight
    pose = Mutex(
      Pose(target: GeoCoordinates(uncheckedLatitude: 0, longitude: 0), zoom: 2, bearing: 0))
  }

  /// Where the camera is now.
  public var state: State {
    let pose = pose.withLock { $0 }
    return State(
      targetCoordinates: pose.target, zoomLevel: pose.zoom,
      distanceToTargetInMeters: distance(zoom: pose.zoom, latitude: pose.target.latitude),
      bearingInDegrees: pose.bearing)
  }

  /// Moves the target to `point`, keeping zoom and bearing.
  ///
  /// - Parameter point: The new target.
  public func lookAt(point: GeoCoordinates) {
    pose.withLock { $0.target = point }
  }

  /// Moves the target to `point` at a zoom level or distance, keeping the bearing.
  ///
  /// Zoom levels outside 0...22 are clamped; a measure that is not a positive finite
  /// number leaves the zoom unchanged.
  /// - Parameters:
  ///   - point: The new target.
  ///   - zoom: A zoom level or a distance to the target in meters.
  public func lookAt(point: GeoCoordinates, zoom: MapMeasure) {
    pose.withLock { pose in
      pose.target = point
      if let level = zoomLevel(for: zoom, latitude: point.latitude) { pose.zoom = level }
    }
  }

  /// Moves the target to `point`, turned to a bearing, at a zoom level or distance.
  ///
  /// - Parameters:
  ///   - point: The new target.
  ///   - bearingInDegrees: The direction to point up, degrees clockwise from true north;
  ///     any finite value (wrapped into 0..<360); not a number keeps the bearing.
  ///   - zoom: A zoom level or a distance to the target in meters.
  public func lookAt(point: GeoCoordinates, bearingInDegrees: Double, zoom: MapMeasure) {
    pose.withLock { pose in
      pose.target = point
      if let level = zoomLevel(for: zoom, latitude: point.latitude) { pose.zoom = level }
      if bearingInDegrees.isFinite {
        var wrapped = bearingInDegrees.truncatingRemainder(dividingBy: 360)
        if wrapped < 0 { wrapped += 360 }
        pose.bearing = wrapped
      }
    }
  }

  /// Changes the zoom level, keeping target and bearing (clamped to 0...22; not a number is
  /// ignored).
  ///
  /// - Parameter zoomLevel: The new zoom level.
  public func zoomTo(zoomLevel: Double) {
    guard zoomLevel.isFinite else { return }
    pose.withLock { $0.zoom = MapCamera.clamp(zoomLevel) }
  }

  private static func clamp(_ zoom: Double) -> Double {
    min(maximumZoomLevel, max(minimumZoomLevel, zoom))
  }

  private func zoomLevel(for measure: MapMeasure, latitude: Double) -> Double? {
    guard measure.value.isFinite else { return nil }
    switch measure.kind {
    case .zoomLevel:
      return MapCamera.clamp(measure.value)
    case .distanceInMeters:
      guard measure.value > 0 else { return nil }
      // distance = h × mpp / (2 tan(fov/2)), mpp = C cos(lat) / (256 × 2^z).
      let metersPerPixel =
        measure.value * 2 * tan(MapCamera.fieldOfViewInDegrees * .pi / 360)
        / viewHeight
      let circumference = 2 * WebMercator.maximumProjectedMeters
      let zoom = log2(circumference * cos(latitude * .pi / 180) / (256 * metersPerPixel))
      return zoom.isFinite ? MapCamera.clamp(zoom) : nil
    }
  }

  private func distance(zoom: Double, latitude: Double) -> Double {
    let circumference = 2 * WebMercator.maximumProjectedMeters
    let metersPerPixel = circumference * cos(latitude * .pi / 180) / (256 * exp2(zoom))
    return viewHeight * metersPerPixel / (2 * tan(MapCamera.fieldOfViewInDegrees * .pi / 360))
  }

  func projection(width: Double, height: Double) -> ViewProjection {
    let pose = pose.withLock { $0 }
    return ViewProjection(
      center: pose.target, zoom: pose.zoom, bearingInDegrees: pose.bearing, width: width,
      height: height)
  }
}
