import Foundation
import LiveLocation
import Testing
@testable import Track

/// Each trkpt child's position in GPX 1.1's wptType sequence (gpx.xsd).
let wptTypeOrder = ["ele", "time", "magvar", "geoidheight", "name", "cmt", "desc", "src", "link", "sym", "type",
                    "fix", "sat", "hdop", "vdop", "pdop", "ageofdgpsdata", "dgpsid", "extensions"]

@Suite struct GPXTests {
    /// 5 fixes, a 31 s gap, 3 fixes: two segments.
    static let fixes = (0..<5).map { trackFix($0) } + (36..<39).map { trackFix($0) }

    @Test func gpxIsWellFormedVersion11WithASegmentPerContinuousRunInTheSchemasOrder() async throws {
        let document = track(Self.fixes, .gpx, name: "share 0b6c1f1e")
        #expect(try await xmllintComplaint(document) == nil)
        let summary = try await python(gpxSummaryScript, on: document, suffix: "gpx")
        #expect(summary["version"] as? String == "1.1")
        #expect(summary["creator"] as? String == "livelocd")
        let tracks = try #require(summary["tracks"] as? [[String: Any]])
        #expect(tracks.count == 1)
        #expect(tracks[0]["name"] as? String == "share 0b6c1f1e")
        let segments = try #require(tracks[0]["segments"] as? [[[String: Any]]])
        #expect(segments.map(\.count) == [5, 3])
        let first = segments[0][0]
        #expect(first["lat"] as? Double == 48.1405925)
        #expect(first["lon"] as? Double == 11.558804667)
        #expect(first["ele"] as? Double == 519.4)
        #expect(first["time"] as? String == "2026-03-14T08:00:00+00:00")
        #expect(first["sat"] as? Int == 11)
        #expect(first["hdop"] as? Double == 0.9)
        #expect(first["fix"] as? String == "3d")
        #expect(first["geoidheight"] as? Double == 47.6)
        #expect(segments[1][0]["time"] as? String == "2026-03-14T08:00:36+00:00")
        #expect((summary["speeds"] as? [String])?.first == "1.25")
        #expect((summary["courses"] as? [String])?.first == "27.8")
        let orders = try #require(summary["orders"] as? [[String]])
        #expect(orders.count == 8)
        for order in orders {
            let positions = order.map { wptTypeOrder.firstIndex(of: $0) ?? -1 }
            #expect(!positions.contains(-1) && positions == positions.sorted(), "\(order)")
        }
        #expect(orders[0] == ["ele", "time", "geoidheight", "fix", "sat", "hdop", "extensions"])
    }

    @Test func aFixWithOnlyAPositionIsATrkptWithItsTimeAndFix() async throws {
        let document = track([trackFix(0, complete: false)], .gpx)
        #expect(try await xmllintComplaint(document) == nil)
        let text = String(decoding: document, as: UTF8.self)
        #expect(text.contains(#"<trkpt lat="48.1405925" lon="11.558804667"><time>2026-03-14T08:00:00.000Z</time><fix>2d</fix></trkpt>"#))
    }

    @Test func namesAreEscapedSoTheDocumentStaysWellFormed() async throws {
        let name = "a&b <c> \"d\" 'e' \u{1}f"
        let document = track([trackFix(0)], .gpx, name: name)
        #expect(try await xmllintComplaint(document) == nil)
        let summary = try await python(gpxSummaryScript, on: document, suffix: "gpx")
        let tracks = try #require(summary["tracks"] as? [[String: Any]])
        #expect(tracks[0]["name"] as? String == "a&b <c> \"d\" 'e' \u{FFFD}f")
    }

    @Test func aTrackWithoutFixesIsAWholeDocument() async throws {
        let document = track([], .gpx, name: "empty")
        #expect(try await xmllintComplaint(document) == nil)
        let summary = try await python(gpxSummaryScript, on: document, suffix: "gpx")
        #expect((summary["tracks"] as? [Any])?.isEmpty == true)
    }
}

@Suite struct GeoJSONTests {
    @Test func geoJSONHasALineStringPerSegmentLongitudeFirstAndAPointForALoneFix() async throws {
        // 4 fixes, a gap, 1 fix, a gap, 2 fixes.
        let fixes = (0..<4).map { trackFix($0) } + [trackFix(100)] + [trackFix(200), trackFix(201)]
        let summary = try await python(geoJSONSummaryScript, on: track(fixes, .geojson, name: "share \"x\""), suffix: "geojson")
        #expect(summary["type"] as? String == "FeatureCollection")
        #expect(summary["valid"] as? Bool == true)
        let features = try #require(summary["features"] as? [[String: Any]])
        #expect(features.map { $0["type"] as? String } == ["LineString", "Point", "LineString"])
        #expect(features.allSatisfy { $0["valid"] as? Bool == true })
        let line = try #require(features[0]["coordinates"] as? [[Double]])
        #expect(line.count == 4)
        #expect(line[0] == [11.5588047, 48.1405925])
        #expect(features[1]["coordinates"] as? [Double] == [11.5608047, 48.1415925])
        let properties = try #require(features[0]["properties"] as? [String: Any])
        #expect(properties["name"] as? String == "share \"x\"")
        #expect(properties["segment"] as? Int == 1)
        #expect(properties["fixes"] as? Int == 4)
        #expect(properties["startTime"] as? String == "2026-03-14T08:00:00.000Z")
        #expect(properties["endTime"] as? String == "2026-03-14T08:00:03.000Z")
        #expect((features[2]["properties"] as? [String: Any])?["segment"] as? Int == 3)
    }

    @Test func anEmptyTrackIsAnEmptyFeatureCollection() async throws {
        let summary = try await python(geoJSONSummaryScript, on: track([], .geojson), suffix: "geojson")
        #expect(summary["valid"] as? Bool == true)
        #expect((summary["features"] as? [Any])?.isEmpty == true)
    }
}

@Suite struct CSVTests {
    @Test func csvHasTheDocumentedColumnsEmptyFieldsForUnknownsAndASegmentNumber() async throws {
        let fixes = [trackFix(0), trackFix(1, complete: false), trackFix(40)]
        let summary = try await python(csvSummaryScript, on: track(fixes, .csv), suffix: "csv")
        #expect(summary["columns"] as? [String] == ["time", "latitude", "longitude", "altitude_msl", "altitude_hae", "speed",
                                                     "course", "accuracy", "hdop", "satellites", "mode", "segment"])
        let rows = try #require(summary["rows"] as? [[String: String]])
        #expect(rows.count == 3)
        #expect(rows[0] == ["time": "2026-03-14T08:00:00.000Z", "latitude": "48.1405925", "longitude": "11.558804667",
                            "altitude_msl": "519.4", "altitude_hae": "567", "speed": "1.25", "course": "27.8",
                            "accuracy": "2.1", "hdop": "0.9", "satellites": "11", "mode": "3", "segment": "1"])
        #expect(rows[1]["altitude_msl"] == "" && rows[1]["satellites"] == "" && rows[1]["mode"] == "2")
        #expect(rows.map { $0["segment"] } == ["1", "1", "2"])
    }
}

@Suite struct TrackStreamingTests {
    @Test func jsonIsTheDecodersTPVLines() {
        let fixes = [trackFix(0), trackFix(1, complete: false)]
        #expect(track(fixes, .json) == fixes.flatMap(\.tpvJSONLineBytes))
    }

    @Test func aGapIsMoreThan30SecondsBetweenFixesOrTimeGoingBack() {
        var segmenter = TrackSegmenter()
        let seconds: [Int64] = [0, 1, 31, 62, 61, 62]
        let starts = seconds.map { segmenter.startsSegment(at: trackStart + .seconds($0)) }
        #expect(starts == [true, false, false, true, true, false])
        #expect(segmenter.segment == 3)
    }

    @Test(arguments: TrackFormat.allCases)
    func anEightHourTrackIsWrittenAsItComesInBoundedPieces(format: TrackFormat) {
        // 28,800 fixes (8 h at 1 Hz), a gap every hour; the output is taken away after every fix, as a caller
        // writing to a file does. Each fix's text is bounded, and so is what the writer keeps.
        var writer = TrackWriter(format: format, name: "8h")
        var output: [UInt8] = []
        var total = 0
        var largest = 0
        for index in 0..<28_800 {
            let gap = Int64(index / 3600) * 60_000
            var fix = trackFix(0)
            fix.time = trackStart + .milliseconds(Int64(index) * 1000 + gap)
            fix.latitude += Double(index) * 1e-7
            writer.append(fix, to: &output)
            largest = max(largest, output.count)
            total += output.count
            output.removeAll(keepingCapacity: true)
        }
        writer.finish(to: &output)
        total += output.count
        // The largest piece is the first: the header with the first fix (GPX: 826 bytes).
        #expect(largest < 1024, "\(format): \(largest) bytes for one fix")
        #expect(output.count < 700)
        #expect(total > 28_800 * 20)
    }
}

/// A course just under 360 stays under 360 when written with three decimals, in every format.
@Suite struct TrackCourseTests {
    @Test func aCourseThatRoundsTo360IsWrittenAs0InGPXCSVAndTPV() {
        var fix = trackFix(0)
        fix.courseDegreesTrue = 359.9996
        let gpx = String(decoding: track([fix], .gpx), as: UTF8.self)
        #expect(gpx.contains("<gpxtpx:course>0</gpxtpx:course>"), "\(gpx)")
        let csv = String(decoding: track([fix], .csv), as: UTF8.self)
        #expect(csv.split(separator: "\n")[1].split(separator: ",", omittingEmptySubsequences: false)[6] == "0", "\(csv)")
        #expect(String(decoding: fix.tpvJSONLineBytes, as: UTF8.self).contains(#""track":0,"#))
        fix.courseDegreesTrue = 359.9994
        #expect(String(decoding: track([fix], .gpx), as: UTF8.self).contains("<gpxtpx:course>359.999</gpxtpx:course>"))
    }
}
