// The core imports no C library, so the few trigonometric functions it needs (distances for the
// throttle and privacy zones, the width of a privacy grid's cells) are here, accurate to well under
// a millimetre at any distance they are used for. Deterministic: the same input gives the same
// output on every run, which the privacy grid relies on.

/// The mean Earth radius (IUGG), metres: the sphere every distance in livelocd is measured on.
let earthMeanRadiusMeters = 6_371_008.8

/// Great-circle distance between two WGS 84 positions in degrees, metres (haversine on the sphere
/// of `earthMeanRadiusMeters`).
func greatCircleDistanceMeters(_ latitude1: Double, _ longitude1: Double,
                               _ latitude2: Double, _ longitude2: Double) -> Double {
    let lat1 = latitude1 * radiansPerDegree
    let lat2 = latitude2 * radiansPerDegree
    let dLat = lat2 - lat1
    let dLon = (longitude2 - longitude1) * radiansPerDegree
    let h = sinSquared(dLat / 2) + cosine(lat1) * cosine(lat2) * sinSquared(dLon / 2)
    return 2 * earthMeanRadiusMeters * arcsineOfSquareRoot(min(1, h))
}

let radiansPerDegree = Double.pi / 180

func cosine(_ x: Double) -> Double { sine(x + Double.pi / 2) }

private func sinSquared(_ x: Double) -> Double { let s = sine(x); return s * s }

func sine(_ x: Double) -> Double {
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

private func arcsineOfSquareRoot(_ h: Double) -> Double {
    // asin(√h) by Newton's method on sin(y) = √h, from a good start; h in [0, 1].
    let target = h.squareRoot()
    if target >= 1 { return Double.pi / 2 }
    var y = target
    for _ in 0..<30 {
        let s = sine(y)
        let c = cosine(y)
        guard c > 1e-12 else { break }
        let step = (s - target) / c
        y -= step
        if abs(step) < 1e-15 { break }
    }
    return y
}

/// The same functions for the other pure modules (the NMEA decoder's distance on the ellipsoid,
/// which also needs the tangent and the arctangents).
package enum Trigonometry {
    /// sin(x), x in radians.
    package static func sine(_ x: Double) -> Double { coreSine(x) }

    /// cos(x), x in radians.
    package static func cosine(_ x: Double) -> Double { coreSine(x + Double.pi / 2) }

    /// tan(x), x in radians.
    package static func tangent(_ x: Double) -> Double { coreSine(x) / coreSine(x + Double.pi / 2) }

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
}

/// The file's `sine`, under a name the enum's members do not shadow.
private func coreSine(_ x: Double) -> Double { sine(x) }
