/// What one sentence says, as its handler read it (gpsd's `newdata`); which fields are set is in
/// the `FieldMask` the handler returns. Units: milliseconds since midnight UTC, days since 1970,
/// degrees, metres, metres per second, degrees true.
struct SentenceReport: Sendable {
    var timeOfDay = 0
    var days: Int64 = 0
    var latitude = 0.0
    var longitude = 0.0
    var altitudeMSL = 0.0
    var geoidSeparation = 0.0
    var speed = 0.0
    var track = 0.0
    var hdop = 0.0
    var horizontalAccuracy = 0.0
    var satellites = 0
    var listedSatellites = 0
    /// The talker's second letter (`P` of GP, `N` of GN), for the GSA accounting.
    var talker: UInt8 = 0
    var modeRule = ModeRule.none

    /// How a sentence bears on the fix's mode (2D or 3D). gpsd decides it sentence by sentence, each
    /// sentence type by its own rule, the latest one winning; `EpochAssembler` applies these.
    enum ModeRule: Sendable, Equatable {
        case none
        /// The sentence says there is no fix.
        case noFix
        /// GGA and GNS: 3D when they give an altitude from at least 4 satellites, else 2D.
        case altitude(present: Bool, satellites: Int)
        /// GSA: the mode it states (2 or 3).
        case stated(Int)
        /// RMC: 2D, or 3D when the fix so far is 3D, has an altitude, or 4 satellites are used.
        case keepThreeDimensional
        /// GLL: 3D when the fix so far has an altitude or 4 satellites are used; 2D when nothing
        /// says 3D; otherwise the mode stays as it is.
        case altitudeSoFar
    }
}
