/// What a sentence handler filled in its `SentenceReport`: gpsd's `gps_mask_t`. The epoch
/// assembler merges exactly these fields into the epoch in progress.
struct FieldMask: OptionSet, Sendable {
    let rawValue: UInt32

    /// `timeOfDay`: the sentence is timed (it may start a new epoch).
    static let time = FieldMask(rawValue: 1 << 0)
    /// `days`: the date.
    static let date = FieldMask(rawValue: 1 << 1)
    /// `latitude` and `longitude`.
    static let position = FieldMask(rawValue: 1 << 2)
    /// The sentence says the receiver has a fix.
    static let fix = FieldMask(rawValue: 1 << 3)
    /// The sentence says the receiver has no fix.
    static let noFix = FieldMask(rawValue: 1 << 4)
    /// `modeRule`: how the sentence bears on 2D/3D.
    static let mode = FieldMask(rawValue: 1 << 5)
    /// `altitudeMSL`.
    static let altitude = FieldMask(rawValue: 1 << 6)
    /// `geoidSeparation`.
    static let geoidSeparation = FieldMask(rawValue: 1 << 7)
    /// `speed`.
    static let speed = FieldMask(rawValue: 1 << 8)
    /// `track`.
    static let track = FieldMask(rawValue: 1 << 9)
    /// `hdop`.
    static let hdop = FieldMask(rawValue: 1 << 10)
    /// `satellites` (used in the fix, as GGA and GNS count them).
    static let satellites = FieldMask(rawValue: 1 << 11)
    /// `horizontalAccuracy`.
    static let accuracy = FieldMask(rawValue: 1 << 12)
    /// `listedSatellites`: the satellites a GSA lists as used.
    static let satellitesListed = FieldMask(rawValue: 1 << 13)
}
