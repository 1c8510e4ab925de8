import LiveLocation

private let metersPerSecondPerKnot = 1852.0 / 3600.0

/// One function per sentence type, in the manner of gpsd's driver_nmea0183.c: each reads its
/// fields into a `SentenceReport` and returns the mask of what it filled. They know nothing of
/// epochs; `EpochAssembler` alone decides what makes a fix and when it is complete.
///
/// A timed sentence without a valid time is ignored whole (it cannot be placed in an epoch).
enum SentenceHandlers {
    /// `RMC,time,status,lat,N/S,lon,E/W,knots,course,ddmmyy,magvar,E/W[,mode[,navstatus]]`
    static func rmc(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        let time = f.next(), status = f.next()
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let knots = f.next(), course = f.next(), date = f.next()
        f.skip(2)
        let faaMode = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return [] }
        r.timeOfDay = timeOfDay
        var mask: FieldMask = .time
        if let days = ddmmyy(date) {
            r.days = days
            mask.insert(.date)
        }
        guard statusAndPosition(status: status, faaMode: faaMode, lat, ns, lon, ew, &r, &mask) else { return mask }
        r.modeRule = .keepThreeDimensional
        if let speed = knots.double {
            r.speed = speed * metersPerSecondPerKnot
            mask.insert(.speed)
        }
        if let course = course.double {
            r.track = course
            mask.insert(.track)
        }
        return mask
    }

    /// `GGA,time,lat,N/S,lon,E/W,quality,sats,hdop,alt,M,sep,M,age,station`
    static func gga(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        let time = f.next()
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let quality = f.next(), sats = f.next(), hdop = f.next()
        let altitude = f.next(); f.skip(1)
        let separation = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return [] }
        r.timeOfDay = timeOfDay
        guard !quality.isEmpty, !quality.is(UInt8(ascii: "0")) else {
            r.modeRule = .noFix
            return [.time, .noFix, .mode]
        }
        var mask: FieldMask = .time
        if let (latitude, longitude) = position(lat, ns, lon, ew) {
            r.latitude = latitude
            r.longitude = longitude
            mask.insert(.position)
        }
        // A fix from 00 satellites is no fix (a receiver coasting after losing lock), unless a
        // later GSA of the epoch says otherwise; gpsd decides the same.
        mask.insert(sats.integer == 0 ? .noFix : .fix)
        mask.formUnion(Self.quality(sats: sats, hdop: hdop, altitude: altitude, separation: separation, &r))
        r.modeRule = .altitude(present: mask.contains(.altitude), satellites: r.satellites)
        return mask.union(.mode)
    }

    /// `GNS,time,lat,N/S,lon,E/W,modes,sats,hdop,alt,sep,age,station[,navstatus]`
    static func gns(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        let time = f.next()
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let modes = f.next(), sats = f.next(), hdop = f.next()
        let altitude = f.next(), separation = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return [] }
        r.timeOfDay = timeOfDay
        var anyFix = false
        for index in 0..<modes.count where modes.base[index] != UInt8(ascii: "N") { anyFix = true }
        guard anyFix else {
            r.modeRule = .noFix
            return [.time, .noFix, .mode]
        }
        var mask: FieldMask = [.time, .fix, .mode]
        if let (latitude, longitude) = position(lat, ns, lon, ew) {
            r.latitude = latitude
            r.longitude = longitude
            mask.insert(.position)
        }
        mask.formUnion(Self.quality(sats: sats, hdop: hdop, altitude: altitude, separation: separation, &r))
        r.modeRule = .altitude(present: mask.contains(.altitude), satellites: r.satellites)
        return mask
    }

    /// The fields GGA and GNS share: satellites used, HDOP, altitude (MSL) and geoid separation.
    private static func quality(sats: Field, hdop: Field, altitude: Field, separation: Field,
                                _ r: inout SentenceReport) -> FieldMask {
        var mask: FieldMask = []
        if let sats = sats.integer {
            r.satellites = sats
            mask.insert(.satellites)
        }
        if let hdop = hdop.double {
            r.hdop = hdop
            mask.insert(.hdop)
        }
        if let altitude = altitude.double {
            r.altitudeMSL = altitude
            mask.insert(.altitude)
        }
        if let separation = separation.double {
            r.geoidSeparation = separation
            mask.insert(.geoidSeparation)
        }
        return mask
    }

    /// `GLL,lat,N/S,lon,E/W,time,status[,mode]`
    static func gll(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let time = f.next(), status = f.next(), faaMode = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return [] }
        r.timeOfDay = timeOfDay
        var mask: FieldMask = .time
        if statusAndPosition(status: status, faaMode: faaMode, lat, ns, lon, ew, &r, &mask) {
            r.modeRule = .altitudeSoFar
        }
        return mask
    }

    /// RMC's and GLL's shared rule: status A (and a FAA mode other than N) is a fix at the given
    /// position; anything else is no fix. Returns whether it was a fix.
    private static func statusAndPosition(
        status: Field, faaMode: Field, _ lat: Field, _ ns: Field, _ lon: Field, _ ew: Field,
        _ r: inout SentenceReport, _ mask: inout FieldMask
    ) -> Bool {
        guard status.is(UInt8(ascii: "A")), !faaMode.is(UInt8(ascii: "N")) else {
            r.modeRule = .noFix
            mask.formUnion([.noFix, .mode])
            return false
        }
        if let (latitude, longitude) = position(lat, ns, lon, ew) {
            r.latitude = latitude
            r.longitude = longitude
            mask.insert(.position)
        }
        mask.formUnion([.fix, .mode])
        return true
    }

    /// `VTG,course,T,course,M,knots,N,kmh,K[,mode]`, or the old form `VTG,course,course,knots,kmh`.
    /// Like gpsd, the modern form counts only with both a true course and a speed in knots, and
    /// not when its FAA mode says the fix is estimated (E) or not valid (N).
    static func vtg(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        let course = f.next(), second = f.next()
        if second.is(UInt8(ascii: "T")) {
            f.skip(2)
            let knots = f.next()
            f.skip(3)
            let faaMode = f.next()
            guard !faaMode.is(UInt8(ascii: "E")), !faaMode.is(UInt8(ascii: "N")),
                  let track = course.double, let speed = knots.double
            else { return [] }
            r.track = track
            r.speed = speed * metersPerSecondPerKnot
            return [.track, .speed]
        }
        let knots = f.next(), kmh = f.next()
        var mask: FieldMask = []
        if let track = course.double {
            r.track = track
            mask.insert(.track)
        }
        if let speed = knots.double {
            r.speed = speed * metersPerSecondPerKnot
            mask.insert(.speed)
        } else if let speed = kmh.double {
            r.speed = speed / 3.6
            mask.insert(.speed)
        }
        return mask
    }

    /// `GSA,A/M,mode,prn×12,pdop,hdop,vdop[,system]`
    static func gsa(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        f.skip(1)
        let mode = f.next()
        var listed = 0
        for _ in 0..<12 {
            let prn = f.next()
            if let number = prn.integer, (1...600).contains(number) { listed += 1 }
        }
        r.listedSatellites = listed
        guard let value = mode.integer else { return .satellitesListed }
        if value <= 1 {
            r.modeRule = .noFix
            return [.noFix, .mode, .satellitesListed]
        }
        // gpsd takes modes 1-3 only (an Antaris receiver says E for dead reckoning).
        guard value <= 3 else { return [.fix, .satellitesListed] }
        r.modeRule = .stated(value)
        return [.fix, .mode, .satellitesListed]
    }

    /// `ZDA,time,dd,mm,yyyy,zone hours,zone minutes`
    static func zda(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        let time = f.next(), day = f.next(), month = f.next(), year = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return [] }
        r.timeOfDay = timeOfDay
        guard let d = day.integer, let m = month.integer, let y = year.integer,
              (1...31).contains(d), (1...12).contains(m), y >= 1980
        else { return .time }
        r.days = CivilDate(year: Int64(y), month: m, day: d).daysSince1970
        return [.time, .date]
    }

    /// `GST,time,rms,major,minor,orientation,lat σ,lon σ,alt σ` (σ in metres): the horizontal
    /// accuracy as 2DRMS, 2·√(σlat² + σlon²), about 95 %.
    static func gst(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        let time = f.next()
        f.skip(4)
        let latitudeError = f.next(), longitudeError = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return [] }
        r.timeOfDay = timeOfDay
        guard let sLat = latitudeError.double, let sLon = longitudeError.double, sLat >= 0, sLon >= 0
        else { return .time }
        r.horizontalAccuracy = 2 * (sLat * sLat + sLon * sLon).squareRoot()
        return [.time, .accuracy]
    }

    /// `PGRMZ,altitude,f,mode` (Garmin): the altitude in feet (MSL, as GGA's) and the mode, 2 or 3.
    static func pgrmz(_ f: inout FieldCursor, _ r: inout SentenceReport) -> FieldMask {
        let altitude = f.next(), unit = f.next(), mode = f.next()
        var mask: FieldMask = []
        if unit.is(UInt8(ascii: "f")), let feet = altitude.double {
            r.altitudeMSL = feet * 0.3048
            mask.insert(.altitude)
        }
        if let value = mode.integer, value == 2 || value == 3 {
            r.modeRule = .stated(value)
            mask.insert(.mode)
        }
        return mask
    }

    private static func ddmmyy(_ field: Field) -> Int64? {
        guard field.count == 6, let value = field.integer else { return nil }
        let d = value / 10000, m = value / 100 % 100, yy = value % 100
        guard (1...31).contains(d), (1...12).contains(m) else { return nil }
        let year = Int64(yy < 80 ? 2000 + yy : 1900 + yy)
        return CivilDate(year: year, month: m, day: d).daysSince1970
    }

    private static func position(_ lat: Field, _ ns: Field, _ lon: Field, _ ew: Field) -> (Double, Double)? {
        guard var latitude = lat.degreesMinutes, var longitude = lon.degreesMinutes,
              latitude <= 90, longitude <= 180
        else { return nil }
        switch ns.first {
        case UInt8(ascii: "N"): break
        case UInt8(ascii: "S"): latitude = -latitude
        default: return nil
        }
        switch ew.first {
        case UInt8(ascii: "E"): break
        case UInt8(ascii: "W"): longitude = -longitude
        default: return nil
        }
        return (latitude, longitude)
    }
}
