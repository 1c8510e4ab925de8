// TEMPORARY (not committed): RMC-only stand-in until the real decoder lands.
import LiveLocation
public struct NMEAStatistics: Sendable, Equatable {}
public struct NMEADecoder: Sendable {
    var line: [UInt8] = []
    public init() {}
    public var statistics: NMEAStatistics { .init() }
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onFix: (Fix) -> Void) {
        for b in bytes {
            if b == 10 { handle(onFix); line.removeAll(keepingCapacity: true) } else if b != 13 { line.append(b) }
        }
    }
    public mutating func finish(onFix: (Fix) -> Void) { handle(onFix); line.removeAll() }
    func handle(_ onFix: (Fix) -> Void) {
        let s = String(decoding: line, as: UTF8.self)
        guard s.count > 6, s.dropFirst(3).hasPrefix("RMC") else { return }
        let f = s.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        guard f.count > 9, f[2] == "A", let t = Double(f[1]), let la = Double(f[3]), let lo = Double(f[5]) else { return }
        let d = f[9]; guard d.count == 6, let dd = Int(d.prefix(2)), let mm = Int(d.dropFirst(2).prefix(2)), let yy = Int(d.suffix(2)) else { return }
        let days = CivilDate(year: Int64(2000 + yy), month: mm, day: dd).daysSince1970
        let hh = Int(t / 10000), mi = Int(t / 100) % 100; let sec = t - Double(hh * 10000 + mi * 100)
        let ms = days * 86_400_000 + Int64(hh * 3600 + mi * 60) * 1000 + Int64((sec * 1000).rounded())
        var lat = Double(Int(la / 100)) + la.truncatingRemainder(dividingBy: 100) / 60; if f[4] == "S" { lat = -lat }
        var lon = Double(Int(lo / 100)) + lo.truncatingRemainder(dividingBy: 100) / 60; if f[6] == "W" { lon = -lon }
        onFix(Fix(time: Timestamp(millisecondsSince1970: ms), latitude: lat, longitude: lon, mode: .twoDimensional))
    }
}
