extension RTree {
  /// The insertion indices of `items` sorted by the Hilbert code of their box centres on a
  /// 65536 x 65536 grid over the items' extent; equal codes keep insertion order.
  ///
  /// - Complexity: O(n): four stable counting-sort passes of 8 bits each.
  package static func hilbertOrder(_ items: [(box: RTreeBox, payload: Payload)]) -> [Int] {
    let count = items.count
    guard count > 1 else { return Array(0..<count) }
    var minX = Double.infinity, minY = Double.infinity
    var maxX = -Double.infinity, maxY = -Double.infinity
    for item in items {
      minX = min(minX, item.box.minX)
      minY = min(minY, item.box.minY)
      maxX = max(maxX, item.box.maxX)
      maxY = max(maxY, item.box.maxY)
    }
    let gridMax = Double(HilbertCurve.side - 1)
    let scaleX = maxX > minX ? gridMax / (maxX - minX) : 0
    let scaleY = maxY > minY ? gridMax / (maxY - minY) : 0

    // Key: Hilbert code in the high 32 bits, insertion index in the low 32 bits.
    var keys = [UInt64](repeating: 0, count: count)
    for index in 0..<count {
      let box = items[index].box
      let x = HilbertCurve.gridCoordinate(((box.minX + box.maxX) / 2 - minX) * scaleX)
      let y = HilbertCurve.gridCoordinate(((box.minY + box.maxY) / 2 - minY) * scaleY)
      keys[index] = UInt64(HilbertCurve.index(x: x, y: y)) << 32 | UInt64(index)
    }
    if count <= 256 {
      keys.sort()
    } else {
      RadixSort.sortByHigh32Bits(&keys)
    }
    return keys.map { Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
  }
}

/// Positions along the Hilbert curve filling a 65536 x 65536 grid (Hilbert 1891; the
/// iterative bit-by-bit formulation of Butz 1971 / Lam & Shapiro 1994).
enum HilbertCurve {
  /// Cells per side of the grid.
  static let side: UInt32 = 1 << 16

  /// A grid coordinate from a scaled value, clamped to the grid; NaN maps to 0.
  @inline(__always)
  static func gridCoordinate(_ value: Double) -> UInt32 {
    guard value > 0 else { return 0 }
    return value < Double(side - 1) ? UInt32(value) : side - 1
  }

  /// The distance along the curve of cell (x, y), 0..<2^32.
  ///
  /// - Complexity: O(16).
  @inline(__always)
  static func index(x: UInt32, y: UInt32) -> UInt32 {
    var x = x, y = y
    var code: UInt32 = 0
    var s: UInt32 = side >> 1
    while s > 0 {
      let rx: UInt32 = x & s != 0 ? 1 : 0
      let ry: UInt32 = y & s != 0 ? 1 : 0
      code &+= s &* s &* ((3 &* rx) ^ ry)
      // Rotate the quadrant so that the sub-curve starts and ends where the parent expects.
      if ry == 0 {
        if rx == 1 {
          x = side &- 1 &- x
          y = side &- 1 &- y
        }
        swap(&x, &y)
      }
      s >>= 1
    }
    return code
  }
}

/// Least-significant-digit radix sort.
enum RadixSort {
  /// Sorts by the high 32 bits only, stably (so equal high halves keep their order).
  ///
  /// - Complexity: O(n), four passes over the keys with a 256-entry histogram each.
  static func sortByHigh32Bits(_ keys: inout [UInt64]) {
    let count = keys.count
    var buffer = [UInt64](repeating: 0, count: count)
    var histogram = [Int](repeating: 0, count: 256)
    for pass in 0..<4 {
      let shift = UInt64(32 + 8 * pass)
      keys.withUnsafeBufferPointer { source in
        buffer.withUnsafeMutableBufferPointer { target in
          histogram.withUnsafeMutableBufferPointer { histogram in
            for i in 0..<256 { histogram[i] = 0 }
            for key in source { histogram[Int(truncatingIfNeeded: (key >> shift) & 0xFF)] += 1 }
            var offset = 0
            for i in 0..<256 {
              let bucket = histogram[i]
              histogram[i] = offset
              offset += bucket
            }
            for key in source {
              let digit = Int(truncatingIfNeeded: (key >> shift) & 0xFF)
              target[histogram[digit]] = key
              histogram[digit] += 1
            }
          }
        }
      }
      swap(&keys, &buffer)
    }
  }
}
