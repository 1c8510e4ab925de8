import LiveLocation

/// The distance between two points on the WGS 84 ellipsoid by Vincenty's inverse formula, the way
/// gpsd's earth_distance() computes it (libgps/gpsutils.c): gpsd divides it by the time between two
/// fixes for the speed of a receiver that reports none, and this decoder does the same.
enum EllipsoidDistance {
    private static let a = 6_378_137.0          // WGS 84 semi-major axis, metres
    private static let f = 1 / 298.257_223_563   // flattening
    private static let b = 6_356_752.314_245     // semi-minor axis, metres

    /// Metres between (lat1, lon1) and (lat2, lon2), in degrees; nil when the iteration does not
    /// converge (nearly antipodal points).
    static func meters(_ lat1: Double, _ lon1: Double, _ lat2: Double, _ lon2: Double) -> Double? {
        let radians = Double.pi / 180
        let L = (lon2 - lon1) * radians
        let U1 = Trigonometry.arctangent((1 - f) * Trigonometry.tangent(lat1 * radians))
        let U2 = Trigonometry.arctangent((1 - f) * Trigonometry.tangent(lat2 * radians))
        let sinU1 = Trigonometry.sine(U1), cosU1 = Trigonometry.cosine(U1)
        let sinU2 = Trigonometry.sine(U2), cosU2 = Trigonometry.cosine(U2)
        var lambda = L
        var iterations = 100
        var sinSigma = 0.0, cosSigma = 0.0, sigma = 0.0, cosSquaredAlpha = 0.0, cos2SigmaM = 0.0
        while true {
            let sinLambda = Trigonometry.sine(lambda), cosLambda = Trigonometry.cosine(lambda)
            let t1 = cosU2 * sinLambda
            let t2 = cosU1 * sinU2 - sinU1 * cosU2 * cosLambda
            sinSigma = (t1 * t1 + t2 * t2).squareRoot()
            if sinSigma == 0 { return 0 }
            cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosLambda
            sigma = Trigonometry.arctangent2(sinSigma, cosSigma)
            let sinAlpha = cosU1 * cosU2 * sinLambda / sinSigma
            cosSquaredAlpha = 1 - sinAlpha * sinAlpha
            cos2SigmaM = cosSigma - 2 * sinU1 * sinU2 / cosSquaredAlpha
            if !cos2SigmaM.isFinite { cos2SigmaM = 0 }
            let C = f / 16 * cosSquaredAlpha * (4 + f * (4 - 3 * cosSquaredAlpha))
            let previous = lambda
            lambda = L + (1 - C) * f * sinAlpha
                * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (2 * cos2SigmaM * cos2SigmaM - 1)))
            iterations -= 1
            if abs(lambda - previous) <= 1e-12 { break }
            if iterations == 0 { return nil }
        }
        let uSquared = cosSquaredAlpha * (a * a - b * b) / (b * b)
        let A = 1 + uSquared / 16384 * (4096 + uSquared * (-768 + uSquared * (320 - 175 * uSquared)))
        let B = uSquared / 1024 * (256 + uSquared * (-128 + uSquared * (74 - 47 * uSquared)))
        let deltaSigma = B * sinSigma * (cos2SigmaM + B / 4
            * (cosSigma * (-1 + 2 * cos2SigmaM * cos2SigmaM)
                - B / 6 * cos2SigmaM * (-3 + 4 * sinSigma * sinSigma) * (-3 + 4 * cos2SigmaM * cos2SigmaM)))
        return b * A * (sigma - deltaSigma)
    }
}
