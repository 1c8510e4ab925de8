import CGPS
import LiveLocation

// The report bits of `gps_data_t.set` (gps.h), which Swift does not import from the macros.
let timeSet: gps_mask_t = 1 << 2
let latLonSet: gps_mask_t = 1 << 4
let modeSet: gps_mask_t = 1 << 10
let satelliteSet: gps_mask_t = 1 << 15
let deviceSet: gps_mask_t = 1 << 19
let deviceListSet: gps_mask_t = 1 << 20
let errorSet: gps_mask_t = 1 << 31

/// A finite value, or nil (gpsd marks unknown values with NaN).
@inline(__always)
func known(_ value: Double) -> Double? { value.isFinite ? value : nil }

extension Fix {
    /// The fix of a TPV report just read into `data`, or nil when the TPV has no usable position:
    /// mode below 2, latitude or longitude not finite, or no time (a TPV built from GGA alone).
    /// `hdop` and `satellitesUsed` come from the latest SKY report, passed in by the caller.
    init?(tpv data: UnsafePointer<gps_data_t>, hdop: Double?, satellitesUsed: Int?) {
        let set = data.pointee.set
        let fix = data.pointee.fix
        guard set & modeSet != 0, set & timeSet != 0, set & latLonSet != 0,
              fix.mode == 2 || fix.mode == 3,
              fix.time.tv_sec > 0 || fix.time.tv_nsec > 0,
              fix.time.tv_sec < 253_402_300_800,  // before the year 10000: a time in range of every conversion
              fix.latitude.isFinite, fix.longitude.isFinite,
              abs(fix.latitude) <= 90, abs(fix.longitude) <= 180
        else { return nil }
        let milliseconds = Int64(fix.time.tv_sec) * 1000 + (Int64(fix.time.tv_nsec) + 500_000) / 1_000_000
        var accuracy = known(fix.eph)
        if accuracy == nil, let epx = known(fix.epx), let epy = known(fix.epy) {
            accuracy = (epx * epx + epy * epy).squareRoot()
        }
        self.init(
            time: Timestamp(millisecondsSince1970: milliseconds),
            latitude: fix.latitude, longitude: fix.longitude,
            mode: fix.mode == 3 ? .threeDimensional : .twoDimensional,
            altitudeMSLMeters: known(fix.altMSL), altitudeHAEMeters: known(fix.altHAE),
            speedMetersPerSecond: known(fix.speed), courseDegreesTrue: known(fix.track),
            horizontalAccuracyMeters: accuracy, hdop: hdop, satellitesUsed: satellitesUsed)
    }
}

/// A C `char[N]` imported as a tuple, as a String (up to its NUL).
func string<T>(fromCharacters tuple: T) -> String {
    withUnsafeBytes(of: tuple) { raw in
        let bytes = raw.prefix(while: { $0 != 0 })
        return String(decoding: bytes, as: UTF8.self)
    }
}
