import Geo

/// SplitMix64 (Steele, Lea & Flood 2014), duplicated in bench/rtree_compare.py so that both
/// benchmarks index exactly the same boxes.
struct SplitMix64 {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform value in 0..<1 from the top 53 bits.
  mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }
}

/// The data of flatbush's bench.js (the version whose figures its README publishes): boxes
/// with sides up to 1 in a 100 x 100 square, and query boxes with sides up to
/// 100 sqrt(0.1), 10 and 1 (at most 10 %, 1 % and 0.01 % of the square).
struct RTreeWorkload {
  let items: [(box: RTreeBox, payload: Int32)]
  let queries10Percent: [RTreeBox]
  let queries1Percent: [RTreeBox]
  let queries001Percent: [RTreeBox]

  init(itemCount: Int, queryCount: Int, seed: UInt64 = 42) {
    var random = SplitMix64(seed: seed)
    func randomBox(maxSide: Double) -> RTreeBox {
      let x = random.nextUnit() * (100 - maxSide)
      let y = random.nextUnit() * (100 - maxSide)
      let width = random.nextUnit() * maxSide
      let height = random.nextUnit() * maxSide
      return RTreeBox(uncheckedMinX: x, minY: y, maxX: x + width, maxY: y + height)
    }
    items = (0..<itemCount).map { (box: randomBox(maxSide: 1), payload: Int32($0)) }
    var q10: [RTreeBox] = [], q1: [RTreeBox] = [], q001: [RTreeBox] = []
    for _ in 0..<queryCount {
      q10.append(randomBox(maxSide: 100 * (0.1).squareRoot()))
      q1.append(randomBox(maxSide: 10))
      q001.append(randomBox(maxSide: 1))
    }
    queries10Percent = q10
    queries1Percent = q1
    queries001Percent = q001
  }
}
