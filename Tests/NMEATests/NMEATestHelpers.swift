import LiveLocation
import NMEA

/// `$BODY*HH\r\n` with the right checksum.
func sentence(_ body: String) -> String {
    let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
    let hex = Array("0123456789ABCDEF")
    return "$\(body)*\(hex[Int(sum >> 4)])\(hex[Int(sum & 0xF)])\r\n"
}

/// Decodes `text` in one chunk, then finishes.
func decode(_ text: String) -> (fixes: [Fix], statistics: NMEAStatistics) {
    decode(bytes: Array(text.utf8))
}

/// Decodes `bytes` fed in chunks of `chunkSize` (all at once when nil), then finishes.
func decode(bytes: [UInt8], chunkSize: Int? = nil) -> (fixes: [Fix], statistics: NMEAStatistics) {
    var decoder = NMEADecoder()
    var fixes: [Fix] = []
    let size = max(1, chunkSize ?? bytes.count)
    var start = 0
    while start < bytes.count {
        let end = min(bytes.count, start + size)
        bytes[start..<end].withUnsafeBytes { decoder.feed($0) { fixes.append($0) } }
        start = end
    }
    decoder.finish { fixes.append($0) }
    return (fixes, decoder.statistics)
}

func timestamp(_ iso: String) -> Timestamp { Timestamp(iso8601: iso)! }

/// One complete, valid epoch of a typical receiver (GGA, GSA, RMC, VTG) at `time` on 2026-12-02.
func epoch(_ time: String, lat: String = "4807.038", lon: String = "01131.000") -> String {
    sentence("GPGGA,\(time),\(lat),N,\(lon),E,1,08,0.9,545.4,M,46.9,M,,")
        + sentence("GPGSA,A,3,04,05,,09,12,,,24,,,,,2.5,1.3,2.1")
        + sentence("GPRMC,\(time),A,\(lat),N,\(lon),E,022.4,084.4,021226,003.1,W")
        + sentence("GPVTG,084.4,T,,M,022.4,N,041.5,K")
}

func isClose(_ a: Double?, _ b: Double, within tolerance: Double = 1e-9) -> Bool {
    guard let a else { return false }
    return abs(a - b) <= tolerance
}
