/// A fixed grid over the globe whose cells are at most `sizeMeters` across in each direction;
/// a position is shared as the centre of its cell.
///
/// How it is built (on the sphere of the mean Earth radius, no state, no randomness):
/// - **Latitude bands.** From the south pole to the north, `m = ⌈πR / size⌉` bands of equal height
///   `180° / m` (at most `size` metres from south to north).
/// - **Longitude steps per band.** Band `i` is cut into `n = ⌈2πR·cos(φ) / size⌉` cells of equal
///   width `360° / n`, from −180°, where φ is the band's edge nearest the equator (0 when the band
///   spans it). A cell is widest at that edge, so no cell is wider than `size` metres anywhere.
/// - **The shared position** is the cell's centre: the middle of its band and of its step.
///
/// Every true position inside a cell maps to the same centre, so the shared position moves in steps
/// and averaging it over time reveals no more than the cell; the farthest a shared position can be
/// from the true one is half a cell's diagonal, at most `size·√2/2` (0.71 × size).
public struct PrivacyGrid: Sendable, Equatable {
    /// The largest extent of a cell, south to north and west to east, metres.
    public let sizeMeters: Double
    /// The band height, degrees of latitude.
    private let bandDegrees: Double
    private let bandCount: Int

    /// The smallest and largest grid sizes accepted, metres.
    public static let sizeRange: ClosedRange<Double> = 1...100_000

    /// A grid of cells at most `sizeMeters` across; nil outside `sizeRange`.
    public init?(sizeMeters: Double) {
        guard sizeMeters.isFinite, Self.sizeRange.contains(sizeMeters) else { return nil }
        self.sizeMeters = sizeMeters
        bandCount = Int((Double.pi * earthMeanRadiusMeters / sizeMeters).rounded(.up))
        bandDegrees = 180 / Double(bandCount)
    }

    /// The farthest a shared position is from the true one, metres: half a cell's diagonal.
    public var maximumErrorMeters: Double { sizeMeters * 2.squareRoot() / 2 }

    /// The centre of the cell holding (`latitude`, `longitude`), degrees. Longitudes outside
    /// −180..<180 are taken modulo 360°; latitudes are clamped to ±90°.
    public func snap(latitude: Double, longitude: Double) -> (latitude: Double, longitude: Double) {
        let latitude = min(max(latitude, -90), 90)
        let band = min(Int(((latitude + 90) / bandDegrees).rounded(.down)), bandCount - 1)
        let south = -90 + Double(band) * bandDegrees
        let north = south + bandDegrees
        let equatorward = south <= 0 && north >= 0 ? 0 : min(abs(south), abs(north))
        let circumference = 2 * Double.pi * earthMeanRadiusMeters * cosine(equatorward * radiansPerDegree)
        let steps = max(1, Int((circumference / sizeMeters).rounded(.up)))
        let stepDegrees = 360 / Double(steps)
        var east = (longitude + 180).truncatingRemainder(dividingBy: 360)
        if east < 0 { east += 360 }
        let step = min(Int((east / stepDegrees).rounded(.down)), steps - 1)
        return ((south + north) / 2, -180 + (Double(step) + 0.5) * stepDegrees)
    }
}
