// `Traffic` is the SDK module users import; its geometry types come from `Geo`, so importing
// `Traffic` alone gives access to `GeoCoordinates`, `GeoCircle`, `GeoPolyline`, ... as in the
// HERE SDK, where both live in one module.
@_exported import Geo
