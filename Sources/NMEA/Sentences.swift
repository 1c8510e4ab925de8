import LiveLocation

/// The sentence types decoded, by the three letters after the talker.
enum SentenceType: Int, Sendable, Equatable {
    case rmc, gga, gns, gll, vtg, gsa, zda, gst

    var bit: UInt16 { 1 << UInt16(rawValue) }

    /// The type of address `XXyyy` (any talker); nil for others.
    init?(address base: UnsafePointer<UInt8>, count: Int) {
        guard count >= 5 else { return nil }
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
}

private let metersPerSecondPerKnot = 1852.0 / 3600.0

extension EpochAssembler {
    /// Applies one checked sentence of a known type.
    mutating func apply(_ type: SentenceType, _ fields: inout FieldCursor, onFix: (Fix) -> Void) {
        defer { noteSentence(type) }
        switch type {
        case .rmc: applyRMC(&fields, onFix: onFix)
        case .gga: applyGGA(&fields, onFix: onFix)
        case .gns: applyGNS(&fields, onFix: onFix)
        case .gll: applyGLL(&fields, onFix: onFix)
        case .vtg: applyVTG(&fields)
        case .gsa: applyGSA(&fields)
        case .zda: applyZDA(&fields, onFix: onFix)
        case .gst: applyGST(&fields, onFix: onFix)
        }
    }

    /// `RMC,time,status,lat,N/S,lon,E/W,knots,course,ddmmyy,magvar,E/W[,mode[,navstatus]]`
    private mutating func applyRMC(_ f: inout FieldCursor, onFix: (Fix) -> Void) {
        let time = f.next(), status = f.next()
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let knots = f.next(), course = f.next(), date = f.next()
        f.skip(2)
        let faaMode = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return }
        begin(timeOfDay: timeOfDay, onFix: onFix)
        if let days = ddmmyy(date) { setDate(days: days) }
        guard applyStatusAndPosition(status: status, faaMode: faaMode, lat, ns, lon, ew, onFix: onFix) else { return }
        update { epoch in
            if let speed = knots.double { epoch.speed = speed * metersPerSecondPerKnot }
            if let course = course.double { epoch.course = course }
        }
    }

    /// `GGA,time,lat,N/S,lon,E/W,quality,sats,hdop,alt,M,sep,M,age,station`
    private mutating func applyGGA(_ f: inout FieldCursor, onFix: (Fix) -> Void) {
        let time = f.next()
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let quality = f.next(), sats = f.next(), hdop = f.next()
        let altitude = f.next(); f.skip(1)
        let separation = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return }
        begin(timeOfDay: timeOfDay, onFix: onFix)
        guard !quality.isEmpty, !quality.is(UInt8(ascii: "0")) else {
            setHasFix(false)
            return
        }
        if let (latitude, longitude) = position(lat, ns, lon, ew) {
            setPosition(latitude: latitude, longitude: longitude, onFix: onFix)
        }
        // A fix from 00 satellites is no fix (a receiver coasting after losing lock), unless a
        // later GSA of the epoch says otherwise; gpsd decides the same.
        setHasFix(sats.integer != 0)
        recordQuality(sats: sats, hdop: hdop, altitude: altitude, separation: separation)
    }

    /// The fields GGA and GNS share: satellites used, HDOP, altitude (MSL) and geoid separation.
    private mutating func recordQuality(sats: Field, hdop: Field, altitude: Field, separation: Field) {
        update { epoch in
            if let sats = sats.integer { epoch.satellites = sats }
            if let hdop = hdop.double { epoch.hdop = hdop }
            if let altitude = altitude.double { epoch.altitudeMSL = altitude }
            if let separation = separation.double { epoch.geoidSeparation = separation }
        }
    }

    /// `GNS,time,lat,N/S,lon,E/W,modes,sats,hdop,alt,sep,age,station[,navstatus]`
    private mutating func applyGNS(_ f: inout FieldCursor, onFix: (Fix) -> Void) {
        let time = f.next()
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let modes = f.next(), sats = f.next(), hdop = f.next()
        let altitude = f.next(), separation = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return }
        begin(timeOfDay: timeOfDay, onFix: onFix)
        var anyFix = false
        for index in 0..<modes.count where modes.base[index] != UInt8(ascii: "N") { anyFix = true }
        guard anyFix else {
            setHasFix(false)
            return
        }
        if let (latitude, longitude) = position(lat, ns, lon, ew) {
            setPosition(latitude: latitude, longitude: longitude, onFix: onFix)
        }
        setHasFix(true)
        recordQuality(sats: sats, hdop: hdop, altitude: altitude, separation: separation)
    }

    /// `GLL,lat,N/S,lon,E/W,time,status[,mode]`
    private mutating func applyGLL(_ f: inout FieldCursor, onFix: (Fix) -> Void) {
        let lat = f.next(), ns = f.next(), lon = f.next(), ew = f.next()
        let time = f.next(), status = f.next(), faaMode = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return }
        begin(timeOfDay: timeOfDay, onFix: onFix)
        applyStatusAndPosition(status: status, faaMode: faaMode, lat, ns, lon, ew, onFix: onFix)
    }

    /// RMC's and GLL's shared rule: status A (and a FAA mode other than N) is a fix at the given
    /// position; anything else is no fix. Returns whether it was a fix.
    @discardableResult
    private mutating func applyStatusAndPosition(
        status: Field, faaMode: Field, _ lat: Field, _ ns: Field, _ lon: Field, _ ew: Field, onFix: (Fix) -> Void
    ) -> Bool {
        guard status.is(UInt8(ascii: "A")), !faaMode.is(UInt8(ascii: "N")) else {
            setHasFix(false)
            return false
        }
        if let (latitude, longitude) = position(lat, ns, lon, ew) {
            setPosition(latitude: latitude, longitude: longitude, onFix: onFix)
        }
        setHasFix(true)
        return true
    }

    /// `VTG,course,T,course,M,knots,N,kmh,K[,mode]`, or the old form `VTG,course,course,knots,kmh`.
    private mutating func applyVTG(_ f: inout FieldCursor) {
        let course = f.next(), second = f.next()
        var knots: Field, kmh: Field
        if second.is(UInt8(ascii: "T")) {
            f.skip(2)
            knots = f.next(); f.skip(1)
            kmh = f.next()
        } else {
            knots = f.next()
            kmh = f.next()
        }
        update { epoch in
            if let course = course.double { epoch.course = course }
            if let knots = knots.double {
                epoch.speed = knots * metersPerSecondPerKnot
            } else if let kmh = kmh.double {
                epoch.speed = kmh / 3.6
            }
        }
    }

    /// `GSA,A/M,mode,prn×12,pdop,hdop,vdop[,system]`
    private mutating func applyGSA(_ f: inout FieldCursor) {
        f.skip(1)
        let mode = f.next()
        guard let value = mode.integer else { return }
        if value <= 1 {
            setHasFix(false)
        } else {
            update { $0.gsaMode = value }
            setHasFix(true)
        }
    }

    /// `ZDA,time,dd,mm,yyyy,zone hours,zone minutes`
    private mutating func applyZDA(_ f: inout FieldCursor, onFix: (Fix) -> Void) {
        let time = f.next(), day = f.next(), month = f.next(), year = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return }
        begin(timeOfDay: timeOfDay, onFix: onFix)
        guard let d = day.integer, let m = month.integer, let y = year.integer,
              (1...31).contains(d), (1...12).contains(m), y >= 1980
        else { return }
        setDate(days: CivilDate(year: Int64(y), month: m, day: d).daysSince1970)
    }

    /// `GST,time,rms,major,minor,orientation,lat σ,lon σ,alt σ` (σ in metres): the horizontal
    /// accuracy as 2DRMS, 2·√(σlat² + σlon²), about 95 %.
    private mutating func applyGST(_ f: inout FieldCursor, onFix: (Fix) -> Void) {
        let time = f.next()
        f.skip(4)
        let latitudeError = f.next(), longitudeError = f.next()
        guard let timeOfDay = time.timeOfDayMilliseconds else { return }
        begin(timeOfDay: timeOfDay, onFix: onFix)
        guard let sLat = latitudeError.double, let sLon = longitudeError.double, sLat >= 0, sLon >= 0
        else { return }
        update { $0.horizontalAccuracy = 2 * (sLat * sLat + sLon * sLon).squareRoot() }
    }

    private func ddmmyy(_ field: Field) -> Int64? {
        guard field.count == 6, let value = field.integer else { return nil }
        let d = value / 10000, m = value / 100 % 100, yy = value % 100
        guard (1...31).contains(d), (1...12).contains(m) else { return nil }
        let year = Int64(yy < 80 ? 2000 + yy : 1900 + yy)
        return CivilDate(year: year, month: m, day: d).daysSince1970
    }

    private func position(_ lat: Field, _ ns: Field, _ lon: Field, _ ew: Field) -> (Double, Double)? {
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
