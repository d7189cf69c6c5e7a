extension RandomAccessCollection where Element == GeoCoordinates {
  /// Whether `test` holds for some pair of consecutive vertices (a segment of the path
  /// through them), trying the segments in order and stopping at the first that passes.
  ///
  /// - Parameter test: The test of one segment, from its first vertex to its second.
  /// - Returns: `false` for fewer than two vertices.
  /// - Complexity: O(n) calls of `test` at most.
  func containsSegment(where test: (GeoCoordinates, GeoCoordinates) -> Bool) -> Bool {
    var index = startIndex
    guard index != endIndex else { return false }
    var a = self[index]
    formIndex(after: &index)
    while index != endIndex {
      let b = self[index]
      if test(a, b) { return true }
      a = b
      formIndex(after: &index)
    }
    return false
  }
}
