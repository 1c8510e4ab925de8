/// The sentence types decoded, by the three letters after the talker, and the handler of each:
/// gpsd's `nmea_phrase` table, reduced to the sentences that make a fix (and Garmin's PGRMZ, the
/// altitude of receivers that send GLL and no GGA on alternate seconds).
enum SentenceType: Int, Sendable, Equatable {
    case rmc, gga, gns, gll, vtg, gsa, zda, gst, pgrmz

    var bit: UInt16 { 1 << UInt16(rawValue) }

    /// The type of address `XXyyy` (any talker); nil for others. Proprietary addresses (`P…`)
    /// other than PGRMZ are nil.
    init?(address base: UnsafePointer<UInt8>, count: Int) {
        guard count >= 5 else { return nil }
        if base[0] == UInt8(ascii: "P") {
            // PGRMZ
            guard count == 5, base[1] == 0x47, base[2] == 0x52, base[3] == 0x4D, base[4] == 0x5A else { return nil }
            self = .pgrmz
            return
        }
        let t = base + (count - 3)
        switch (t[0], t[1], t[2]) {
        case (0x52, 0x4D, 0x43): self = .rmc  // RMC
        case (0x47, 0x47, 0x41): self = .gga  // GGA
        case (0x47, 0x4E, 0x53): self = .gns  // GNS
        case (0x47, 0x4C, 0x4C): self = .gll  // GLL
        case (0x56, 0x54, 0x47): self = .vtg  // VTG
        case (0x47, 0x53, 0x41): self = .gsa  // GSA
        case (0x5A, 0x44, 0x41): self = .zda  // ZDA
        case (0x47, 0x53, 0x54): self = .gst  // GST
        default: return nil
        }
    }

    /// Reads the sentence's fields (after the address) into `report`; returns what it filled.
    @inline(__always)
    func decode(_ fields: inout FieldCursor, into report: inout SentenceReport) -> FieldMask {
        switch self {
        case .rmc: SentenceHandlers.rmc(&fields, &report)
        case .gga: SentenceHandlers.gga(&fields, &report)
        case .gns: SentenceHandlers.gns(&fields, &report)
        case .gll: SentenceHandlers.gll(&fields, &report)
        case .vtg: SentenceHandlers.vtg(&fields, &report)
        case .gsa: SentenceHandlers.gsa(&fields, &report)
        case .zda: SentenceHandlers.zda(&fields, &report)
        case .gst: SentenceHandlers.gst(&fields, &report)
        case .pgrmz: SentenceHandlers.pgrmz(&fields, &report)
        }
    }
}
