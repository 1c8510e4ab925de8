/// The few elementary functions the package needs (distances on the sphere and the ellipsoid),
/// without importing a C library into the pure modules. Accurate to a few units in the last place
/// over the ranges used; not fast (they run once per fix at most).
package enum Trigonometry {
    /// sin(x), x in radians.
    package static func sine(_ x: Double) -> Double {
        // Reduce to [-π, π], then a Taylor series; |x| ≤ π gives < 1e-15 error with 12 terms.
        var r = x.truncatingRemainder(dividingBy: 2 * Double.pi)
        if r > Double.pi { r -= 2 * Double.pi } else if r < -Double.pi { r += 2 * Double.pi }
        var term = r
        var sum = r
        let r2 = r * r
        for n in 1...12 {
            term *= -r2 / Double((2 * n) * (2 * n + 1))
            sum += term
        }
        return sum
    }

    /// cos(x), x in radians.
    package static func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }

    /// tan(x), x in radians.
    package static func tangent(_ x: Double) -> Double { sine(x) / cosine(x) }

    /// atan(x) in (-π/2, π/2).
    package static func arctangent(_ x: Double) -> Double {
        guard x.isFinite else { return x.isNaN ? x : (x > 0 ? Double.pi / 2 : -Double.pi / 2) }
        if x < 0 { return -arctangent(-x) }
        if x > 1 { return Double.pi / 2 - arctangent(1 / x) }
        // Halve the angle twice (atan x = 2 atan(x / (1 + √(1 + x²)))): |x| ≤ tan(π/16) ≈ 0.2, where
        // 14 terms of the series leave less than 1e-18.
        var y = x
        for _ in 0..<2 { y /= 1 + (1 + y * y).squareRoot() }
        let y2 = y * y
        var power = y
        var sum = y
        for n in 1...14 {
            power *= -y2
            sum += power / Double(2 * n + 1)
        }
        return 4 * sum
    }

    /// atan2(y, x) in (-π, π].
    package static func arctangent2(_ y: Double, _ x: Double) -> Double {
        if x > 0 { return arctangent(y / x) }
        if x < 0 { return y >= 0 ? arctangent(y / x) + Double.pi : arctangent(y / x) - Double.pi }
        if y > 0 { return Double.pi / 2 }
        if y < 0 { return -Double.pi / 2 }
        return 0
    }

    /// asin(√h) for h in [0, 1].
    package static func arcsineOfSquareRoot(_ h: Double) -> Double {
        let s = h.squareRoot()
        if s >= 1 { return Double.pi / 2 }
        return arctangent2(s, (1 - h).squareRoot())
    }
}

/// The mean Earth radius (IUGG), metres: the sphere every distance in livelocd is measured on.
let earthMeanRadiusMeters = 6_371_008.8

let radiansPerDegree = Double.pi / 180

func sine(_ x: Double) -> Double { Trigonometry.sine(x) }

func cosine(_ x: Double) -> Double { Trigonometry.cosine(x) }

/// Great-circle distance between two WGS 84 positions in degrees, metres (haversine on the sphere
/// of `earthMeanRadiusMeters`). Deterministic, which the privacy grid relies on.
func greatCircleDistanceMeters(_ latitude1: Double, _ longitude1: Double,
                               _ latitude2: Double, _ longitude2: Double) -> Double {
    let lat1 = latitude1 * radiansPerDegree
    let lat2 = latitude2 * radiansPerDegree
    let halfDLat = Trigonometry.sine((lat2 - lat1) / 2)
    let halfDLon = Trigonometry.sine((longitude2 - longitude1) * radiansPerDegree / 2)
    let h = halfDLat * halfDLat + Trigonometry.cosine(lat1) * Trigonometry.cosine(lat2) * halfDLon * halfDLon
    return 2 * earthMeanRadiusMeters * Trigonometry.arcsineOfSquareRoot(min(1, h))
}
