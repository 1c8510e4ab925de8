import LiveLocation
import Testing

@Suite struct TimestampTests {
    @Test func formatsAsISO8601UTCWithMilliseconds() {
        #expect(Timestamp(millisecondsSince1970: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSince1970: 951_782_400_123).iso8601 == "2000-02-29T00:00:00.123Z")
        #expect(Timestamp(millisecondsSince1970: -1).iso8601 == "1969-12-31T23:59:59.999Z")
    }

    @Test func parsesWhatItFormats() {
        for ms: Int64 in [0, 1_782_863_999_999, 4_102_444_800_000, 86_399_999] {
            let t = Timestamp(millisecondsSince1970: ms)
            #expect(Timestamp(iso8601: t.iso8601) == t)
        }
        #expect(Timestamp(iso8601: "2026-07-01T00:00:00Z") == Timestamp(iso8601: "2026-07-01T00:00:00.000Z"))
        #expect(Timestamp(iso8601: "2026-07-01 00:00:00Z") == nil)
        #expect(Timestamp(iso8601: "2026-13-01T00:00:00Z") == nil)
    }
}

@Suite struct FixDistanceTests {
    @Test func oneDegreeOfLatitudeIsAbout111Kilometres() {
        let a = Fix(time: start, latitude: 0, longitude: 0)
        let b = Fix(time: start, latitude: 1, longitude: 0)
        #expect(abs(a.distanceMeters(to: b) - 111_195.08) < 0.5)
    }

    @Test func distanceAcrossTheAntimeridianIsShort() {
        let a = Fix(time: start, latitude: 0, longitude: 179.9999)
        let b = Fix(time: start, latitude: 0, longitude: -179.9999)
        #expect(abs(a.distanceMeters(to: b) - 22.24) < 0.05)
    }
}
