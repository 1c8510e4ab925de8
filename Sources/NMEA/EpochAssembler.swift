import LiveLocation

/// Merges what the sentences of one epoch (one time of day) say into fixes, and alone decides when
/// a fix is complete: the shape of gpsd's core, where drivers report what changed and the core
/// merges it and decides when to report.
///
/// A timed sentence (RMC, GGA, GNS, GLL, ZDA, GST) with a new time of day ends the current epoch;
/// untimed ones (VTG, GSA) belong to the epoch in progress. An epoch is reported when it has a
/// position from a sentence that calls itself valid, the latest fix verdict of its sentences is
/// "fix", and a date is known (from RMC or ZDA, advanced when the time of day wraps past UTC
/// midnight: a drop of more than 12 hours). A change of position within the epoch reports the
/// epoch so far first, as gpsd does.
///
/// What gpsd adds to a fix, this adds the same way: the mode (2D or 3D) decided sentence by
/// sentence with driver_nmea0183.c's rules, the height above the ellipsoid from gpsd's geoid model
/// when a receiver gives no separation, and, for a receiver that reports no speed, the distance
/// from the previous epoch's position over the time between them (gpsd_error_model()).
struct EpochAssembler: Sendable {
    /// Fixes reported so far.
    private(set) var reportedFixes = 0
    /// Days since 1970 of the date that applies to `lastTimeOfDay`.
    private(set) var days: Int64?
    /// The time of day of the latest timed sentence, for midnight rollover.
    private var lastTimeOfDay: Int?
    private var epoch = Epoch()
    /// The final state of the epoch before the current one (gpsd's `oldfix`).
    private var previous = Summary()
    /// The types that ended the receiver's completed epochs (its cycle enders, like gpsd's), one
    /// bit per `SentenceType`.
    private var cycleEnders: UInt16 = 0
    /// Satellites the latest run of GSA sentences listed as used (gpsd's `satellites_used`).
    private var satellitesUsed = 0
    /// The talker of the GSA just before, or 0 when the sentence before was no GSA.
    private var lastGSATalker: UInt8 = 0

    struct Epoch: Sendable {
        var timeOfDay: Int?
        var latitude: Double?
        var longitude: Double?
        /// The latest verdict of the epoch's sentences: the last one saying "fix" or "no fix" wins.
        var noFix = false
        /// 1 (no fix), 2 or 3 as the sentences decided; nil when none did.
        var mode: Int?
        var altitudeMSL: Double?
        var geoidSeparation: Double?
        /// Set once per epoch, from the first altitude and separation known (gpsd keeps the first
        /// height above the ellipsoid of a cycle when a later sentence changes only the altitude).
        var altitudeHAE: Double?
        var speed: Double?
        var course: Double?
        var hdop: Double?
        var horizontalAccuracy: Double?
        var satellites: Int?
        var lastType: SentenceType?
        /// Reported already, by `flushCompleted` (a live source that fell silent after the epoch).
        var reported = false
    }

    /// What later epochs need of an earlier one.
    struct Summary: Sendable {
        /// Milliseconds since 1970; nil without a date.
        var time: Int64?
        var latitude: Double?
        var longitude: Double?
        var mode = 0
        var hasAltitude = false
    }

    /// Merges one sentence's report; `mask` says which of its fields are set. Calls `onFix` for
    /// each fix this completes.
    mutating func apply(_ type: SentenceType, _ report: SentenceReport, _ mask: FieldMask, onFix: (Fix) -> Void) {
        defer { epoch.lastType = type }
        if type == .gsa {
            countListedSatellites(report)
        } else {
            lastGSATalker = 0
        }
        // Like gpsd's handlers, a sentence's mode is decided against the fix so far, before a new
        // time of day starts the next epoch.
        let mode = mask.contains(.mode) ? resolveMode(report.modeRule) : nil
        if mask.contains(.time) { begin(timeOfDay: report.timeOfDay, onFix: onFix) }
        if mask.contains(.date) { days = report.days }
        if mask.contains(.position) {
            setPosition(latitude: report.latitude, longitude: report.longitude, onFix: onFix)
        }
        if mask.contains(.noFix) { epoch.noFix = true } else if mask.contains(.fix) { epoch.noFix = false }
        if let mode { epoch.mode = mode }
        if mask.contains(.altitude) { epoch.altitudeMSL = report.altitudeMSL }
        if mask.contains(.geoidSeparation) { epoch.geoidSeparation = report.geoidSeparation }
        if mask.contains(.speed) { epoch.speed = report.speed }
        if mask.contains(.track) { epoch.course = report.track }
        if mask.contains(.hdop) { epoch.hdop = report.hdop }
        if mask.contains(.satellites) { epoch.satellites = report.satellites }
        if mask.contains(.accuracy) { epoch.horizontalAccuracy = report.horizontalAccuracy }
        if epoch.altitudeHAE == nil, let msl = epoch.altitudeMSL {
            if let separation = epoch.geoidSeparation {
                epoch.altitudeHAE = msl + separation
            } else if let latitude = epoch.latitude, let longitude = epoch.longitude {
                epoch.altitudeHAE = msl + GeoidSeparation.meters(latitude: latitude, longitude: longitude)
            }
        }
    }

    /// gpsd counts the satellites of consecutive GSAs together (one per constellation), starting
    /// again when a talker other than GN or QZ repeats itself.
    private mutating func countListedSatellites(_ report: SentenceReport) {
        let talker = report.talker
        if lastGSATalker == 0
            || (talker == lastGSATalker && talker != UInt8(ascii: "N") && talker != UInt8(ascii: "Q")) {
            satellitesUsed = 0
        }
        satellitesUsed += report.listedSatellites
        lastGSATalker = talker
    }

    /// The mode after a sentence with `rule`, or nil when it leaves the mode as it is
    /// (driver_nmea0183.c's rules, and nmea_parse()'s "don't downgrade a 3D fix").
    private func resolveMode(_ rule: SentenceReport.ModeRule) -> Int? {
        let hasAltitude = epoch.altitudeMSL != nil
        var mode: Int
        switch rule {
        case .none: return nil
        case .noFix: return 1
        case .altitude(let present, let satellites):
            mode = present && satellites >= 4 ? 3 : 2
        case .stated(let stated):
            mode = stated
        case .keepThreeDimensional:
            mode = epoch.mode == 3 || satellitesUsed > 3 || hasAltitude ? 3 : 2
        case .altitudeSoFar:
            if hasAltitude || satellitesUsed > 3 {
                mode = 3
            } else if (epoch.mode ?? 0) < 2 || !previous.hasAltitude {
                mode = 2
            } else {
                guard let current = epoch.mode else { return nil }
                mode = current
            }
        }
        if epoch.mode == 3 && (hasAltitude || previous.hasAltitude) { mode = 3 }
        return mode
    }

    /// A timed sentence at `timeOfDay` (ms since midnight) arrives: ends the epoch in progress when
    /// the time differs.
    private mutating func begin(timeOfDay: Int, onFix: (Fix) -> Void) {
        if let current = epoch.timeOfDay, current == timeOfDay { return }
        if epoch.timeOfDay != nil, let last = epoch.lastType { cycleEnders |= last.bit }
        flush(onFix: onFix)
        if let last = lastTimeOfDay, days != nil, timeOfDay + 43_200_000 < last {
            days! += 1  // UTC midnight passed; the date sentence has not caught up yet
        }
        lastTimeOfDay = timeOfDay
        epoch.timeOfDay = timeOfDay
    }

    /// The epoch's position. Some receivers give different positions for the same time of day in
    /// different sentences (a GLL and an RMC a few metres apart); like gpsd, each distinct position
    /// is reported: the epoch so far is reported before the new position replaces it.
    private mutating func setPosition(latitude: Double, longitude: Double, onFix: (Fix) -> Void) {
        if let current = epoch.latitude, let currentLongitude = epoch.longitude,
           abs(current - latitude) > Self.samePositionDegrees
            || abs(currentLongitude - longitude) > Self.samePositionDegrees {
            report(onFix: onFix)
            epoch.reported = false
        }
        epoch.latitude = latitude
        epoch.longitude = longitude
    }

    /// End of input: reports the last epoch only when it is complete, i.e. it ended with the
    /// receiver's cycle enders (or none is known yet). gpsd does the same: a log cut in the middle
    /// of an epoch does not report that epoch.
    mutating func finish(onFix: (Fix) -> Void) {
        if cycleEnders != 0, (epoch.lastType.map { $0.bit & cycleEnders } ?? 0) == 0 {
            epoch = Epoch()
            return
        }
        flush(onFix: onFix)
    }

    /// A live source fell silent after a burst of sentences: reports the epoch in progress now
    /// when it is complete (its last sentence is one of the receiver's cycle enders) rather than
    /// when the next epoch starts, and not again after. The fixes are the same either way; only
    /// their moment differs.
    mutating func flushCompleted(onFix: (Fix) -> Void) {
        guard !epoch.reported, cycleEnders != 0, let last = epoch.lastType, last.bit & cycleEnders != 0
        else { return }
        report(onFix: onFix)
        epoch.reported = true
    }

    /// Positions closer than this (about 0.1 m) are the same report given with different precision.
    static let samePositionDegrees = 1e-6

    /// gpsd's sanity bound on a speed, m/s.
    private static let maximumSpeed = 9999.9

    /// Reports the epoch in progress, if it is a fix, and starts an empty one.
    private mutating func flush(onFix: (Fix) -> Void) {
        report(onFix: onFix)
        if epoch.timeOfDay != nil {
            previous = Summary(
                time: time(of: epoch), latitude: epoch.latitude, longitude: epoch.longitude,
                mode: epoch.noFix ? min(epoch.mode ?? 0, 1) : epoch.mode ?? 0,
                hasAltitude: epoch.altitudeMSL != nil)
        }
        epoch = Epoch()
    }

    private func time(of epoch: Epoch) -> Int64? {
        guard let timeOfDay = epoch.timeOfDay, let days else { return nil }
        return days * 86_400_000 + Int64(timeOfDay)
    }

    /// Reports the epoch in progress, if it is a fix.
    private mutating func report(onFix: (Fix) -> Void) {
        guard !epoch.reported, let time = time(of: epoch), !epoch.noFix,
              let latitude = epoch.latitude, let longitude = epoch.longitude
        else { return }
        let mode: Fix.Mode
        switch epoch.mode {
        case 2: mode = .twoDimensional
        case 3: mode = .threeDimensional
        default: mode = epoch.altitudeMSL == nil ? .twoDimensional : .threeDimensional
        }
        var speed = epoch.speed
        if speed == nil, previous.mode >= 2, let previousTime = previous.time, previousTime < time,
           let previousLatitude = previous.latitude, let previousLongitude = previous.longitude,
           let meters = EllipsoidDistance.meters(previousLatitude, previousLongitude, latitude, longitude) {
            let derived = meters / (Double(time - previousTime) / 1000)
            if derived <= Self.maximumSpeed { speed = derived }
        }
        let fix = Fix(
            time: Timestamp(millisecondsSince1970: time),
            latitude: latitude, longitude: longitude, mode: mode,
            altitudeMSLMeters: epoch.altitudeMSL, altitudeHAEMeters: epoch.altitudeHAE,
            speedMetersPerSecond: speed, courseDegreesTrue: epoch.course.flatMap(normalizedCourse),
            horizontalAccuracyMeters: epoch.horizontalAccuracy, hdop: epoch.hdop, satellitesUsed: epoch.satellites)
        reportedFixes += 1
        onFix(fix)
    }
}

/// A course as `Fix` promises it, in [0, 360): 360 is north (0); anything else outside is unknown.
private func normalizedCourse(_ degrees: Double) -> Double? {
    if degrees == 360 { return 0 }
    return (0 ..< 360).contains(degrees) ? degrees : nil
}
