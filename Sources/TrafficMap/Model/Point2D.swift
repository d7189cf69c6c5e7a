import Geo

/// A point in a view, in pixels from the top-left corner (x to the right, y down), as in the
/// HERE SDK: the plane point of Geo's projections, so that a projected position is a view
/// position without a conversion.
public typealias Point2D = WebMercator.Point
