import Foundation
import LiveLocation
import TestSupport

/// `$BODY*CS\r\n` with the checksum computed.
func sentence(_ body: String) -> String {
    let checksum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
    return "$\(body)*\(String(format: "%02X", checksum))\r\n"
}

/// A log of `seconds` 1 Hz epochs (RMC + GGA) from 2026-03-14T08:00:00Z, moving east.
func writeLog(seconds: Int, named name: String = "replay.nmea") throws -> URL {
    var text = ""
    for second in 0..<seconds {
        let time = String(format: "08%02d%02d.00", second / 60, second % 60)
        let minutes = String(format: "%08.5f", 24.0 + Double(second) * 0.001)
        text += sentence("GPRMC,\(time),A,4807.03800,N,011\(minutes),E,10.0,90.0,140326,,,A")
        text += sentence("GPGGA,\(time),4807.03800,N,011\(minutes),E,1,08,0.9,545.4,M,46.9,M,,")
    }
    let url = try Paths.temporaryDirectory("replay").appendingPathComponent(name)
    try text.write(to: url, atomically: true, encoding: .utf8)
    return url
}

let logStart = Timestamp(iso8601: "2026-03-14T08:00:00.000Z")!
