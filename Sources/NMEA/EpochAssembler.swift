import LiveLocation

/// Merges the sentences of one epoch (one time of day) into fixes, and keeps the date.
///
/// A timed sentence (RMC, GGA, GNS, GLL, ZDA, GST) with a new time of day ends the current epoch;
/// untimed ones (VTG, GSA) belong to the epoch in progress. An epoch is reported when it has a
/// position from a sentence that calls itself valid, the latest fix verdict of its sentences is
/// "fix", and a date is known (from RMC or ZDA, advanced when the time of day wraps past UTC
/// midnight: a drop of more than 12 hours). A change of position within the epoch reports the
/// epoch so far first, as gpsd does.
struct EpochAssembler: Sendable {
    /// Days since 1970 of the date that applies to `lastTimeOfDay`.
    private(set) var days: Int64?
    /// The time of day of the latest timed sentence, for midnight rollover.
    private var lastTimeOfDay: Int?
    private var epoch = Epoch()
    /// The types that ended the receiver's completed epochs (its cycle enders, like gpsd's), one
    /// bit per `SentenceType`.
    private var cycleEnders: UInt16 = 0

    struct Epoch: Sendable {
        var timeOfDay: Int?
        var latitude: Double?
        var longitude: Double?
        /// The latest verdict of the epoch's sentences: the last one saying "fix" or "no fix" wins.
        var noFix = false
        var altitudeMSL: Double?
        var geoidSeparation: Double?
        var speed: Double?
        var course: Double?
        var hdop: Double?
        var horizontalAccuracy: Double?
        var satellites: Int?
        var gsaMode: Int?
        var lastType: SentenceType?
        var hasPosition: Bool { latitude != nil && longitude != nil }
    }

    /// A timed sentence at `timeOfDay` (ms since midnight) arrives: ends the epoch in progress when
    /// the time differs.
    mutating func begin(timeOfDay: Int, onFix: (Fix) -> Void) {
        if let current = epoch.timeOfDay, current == timeOfDay { return }
        if epoch.timeOfDay != nil, let last = epoch.lastType { cycleEnders |= last.bit }
        flush(onFix: onFix)
        if let last = lastTimeOfDay, days != nil, timeOfDay + 43_200_000 < last {
            days! += 1  // UTC midnight passed; the date sentence has not caught up yet
        }
        lastTimeOfDay = timeOfDay
        epoch.timeOfDay = timeOfDay
    }

    /// The date (days since 1970) from an RMC or ZDA of the current epoch.
    mutating func setDate(days newDays: Int64) {
        days = newDays
    }

    /// The epoch's position. Some receivers give different positions for the same time of day in
    /// different sentences (a GLL and an RMC a few metres apart); like gpsd, each distinct position
    /// is reported: the epoch so far is reported before the new position replaces it.
    mutating func setPosition(latitude: Double, longitude: Double, onFix: (Fix) -> Void) {
        if let current = epoch.latitude, let currentLongitude = epoch.longitude,
           abs(current - latitude) > Self.samePositionDegrees
            || abs(currentLongitude - longitude) > Self.samePositionDegrees {
            report(onFix: onFix)
        }
        epoch.latitude = latitude
        epoch.longitude = longitude
    }

    /// A sentence of this epoch says whether there is a fix; the latest word counts (a GGA from
    /// 0 satellites says no, a GSA after it saying 3D says yes, as gpsd decides).
    mutating func setHasFix(_ hasFix: Bool) { epoch.noFix = !hasFix }

    mutating func update(_ body: (inout Epoch) -> Void) { body(&epoch) }

    /// Notes the type of each sentence applied, to learn which type ends the receiver's epochs.
    mutating func noteSentence(_ type: SentenceType) { epoch.lastType = type }

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

    /// Positions closer than this (about 0.1 m) are the same report given with different precision.
    static let samePositionDegrees = 1e-6

    /// Reports the epoch in progress, if it is a fix, and starts an empty one.
    mutating func flush(onFix: (Fix) -> Void) {
        report(onFix: onFix)
        epoch = Epoch()
    }

    /// Reports the epoch in progress, if it is a fix.
    private func report(onFix: (Fix) -> Void) {
        guard let timeOfDay = epoch.timeOfDay, let days, !epoch.noFix,
              let latitude = epoch.latitude, let longitude = epoch.longitude
        else { return }
        let mode: Fix.Mode
        switch epoch.gsaMode {
        case 2: mode = .twoDimensional
        case 3: mode = .threeDimensional
        default: mode = epoch.altitudeMSL == nil ? .twoDimensional : .threeDimensional
        }
        let hae = epoch.altitudeMSL.flatMap { msl in epoch.geoidSeparation.map { msl + $0 } }
        let fix = Fix(
            time: Timestamp(millisecondsSince1970: days * 86_400_000 + Int64(timeOfDay)),
            latitude: latitude, longitude: longitude, mode: mode,
            altitudeMSLMeters: epoch.altitudeMSL, altitudeHAEMeters: hae,
            speedMetersPerSecond: epoch.speed, courseDegreesTrue: epoch.course.flatMap(normalizedCourse),
            horizontalAccuracyMeters: epoch.horizontalAccuracy, hdop: epoch.hdop, satellitesUsed: epoch.satellites)
        onFix(fix)
    }
}

/// A course as `Fix` promises it, in [0, 360): 360 is north (0); anything else outside is unknown.
private func normalizedCourse(_ degrees: Double) -> Double? {
    if degrees == 360 { return 0 }
    return (0 ..< 360).contains(degrees) ? degrees : nil
}
