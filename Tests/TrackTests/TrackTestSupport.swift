import Foundation
import LiveLocation
import TestSupport
import Track

let trackStart = Timestamp(iso8601: "2026-03-14T08:00:00.000Z")!

/// A fix `second` seconds after `trackStart`, walking north-east; every optional field known.
func trackFix(_ second: Int, latitude: Double? = nil, complete: Bool = true) -> Fix {
    Fix(time: trackStart + .seconds(Int64(second)),
        latitude: latitude ?? 48.1405925 + Double(second) * 1e-5, longitude: 11.558804667 + Double(second) * 2e-5,
        mode: complete ? .threeDimensional : .twoDimensional,
        altitudeMSLMeters: complete ? 519.4 + Double(second) : nil, altitudeHAEMeters: complete ? 567 + Double(second) : nil,
        speedMetersPerSecond: complete ? 1.25 : nil, courseDegreesTrue: complete ? 27.8 : nil,
        horizontalAccuracyMeters: complete ? 2.1 : nil, hdop: complete ? 0.9 : nil, satellitesUsed: complete ? 11 : nil)
}

/// The whole track of `fixes` in `format`.
func track(_ fixes: [Fix], _ format: TrackFormat, name: String? = nil) -> [UInt8] {
    var writer = TrackWriter(format: format, name: name)
    var output: [UInt8] = []
    for fix in fixes { writer.append(fix, to: &output) }
    writer.finish(to: &output)
    return output
}

/// Debian's python3 (the one python3-gpxpy and python3-geojson are installed for).
let debianPython = URL(fileURLWithPath: "/usr/bin/python3")

/// Writes `document` to a temporary file and runs `script` on it with Debian's python3 (the path is
/// `sys.argv[1]`); returns the JSON object the script prints.
func python(_ script: String, on document: [UInt8], suffix: String) async throws -> [String: Any] {
    let file = try Paths.temporaryDirectory("track").appendingPathComponent("track.\(suffix)")
    try Data(document).write(to: file)
    let result = try await runProcess(debianPython, ["-c", script, file.path], timeout: .seconds(120))
    guard result.status == 0, let object = jsonObject(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        throw PythonFailure(description: "python3 exited \(result.status): \(result.stderr)\(result.stdout)")
    }
    return object
}

/// `xmllint --noout FILE`: nil when well-formed, else its complaint.
func xmllintComplaint(_ document: [UInt8]) async throws -> String? {
    let file = try Paths.temporaryDirectory("track").appendingPathComponent("track.gpx")
    try Data(document).write(to: file)
    let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/xmllint"), ["--noout", file.path])
    return result.status == 0 && result.stderr.isEmpty ? nil : "exit \(result.status): \(result.stderr)"
}

struct PythonFailure: Error, CustomStringConvertible {
    var description: String
}

/// Reads a GPX file with gpxpy and reports what it found, plus each trkpt's child elements in order.
let gpxSummaryScript = #"""
import gpxpy, json, sys
import xml.etree.ElementTree as ET
text = open(sys.argv[1], encoding="utf-8").read()
gpx = gpxpy.parse(text)
root = ET.fromstring(text.encode("utf-8"))
ns = "{http://www.topografix.com/GPX/1/1}"
orders = [[child.tag.split("}")[1] for child in point] for point in root.iter(ns + "trkpt")]
tpx = "{http://www.garmin.com/xmlschemas/TrackPointExtension/v2}"
speeds = [e.text for e in root.iter(tpx + "speed")]
courses = [e.text for e in root.iter(tpx + "course")]
print(json.dumps({
    "version": gpx.version, "creator": gpx.creator,
    "tracks": [{"name": t.name, "segments": [[{
        "lat": p.latitude, "lon": p.longitude, "ele": p.elevation,
        "time": p.time.isoformat() if p.time else None, "sat": p.satellites, "hdop": p.horizontal_dilution,
        "fix": p.type_of_gpx_fix, "geoidheight": p.geoid_height} for p in s.points] for s in t.segments]} for t in gpx.tracks],
    "orders": orders, "speeds": speeds, "courses": courses}))
"""#

/// Reads a GeoJSON file with python3-geojson: validity, and each feature's geometry and properties.
let geoJSONSummaryScript = #"""
import geojson, geojson.geometry, json, sys
geojson.geometry.DEFAULT_PRECISION = 15  # the library rounds coordinates to 6 decimals by default
document = geojson.load(open(sys.argv[1], encoding="utf-8"))
print(json.dumps({
    "type": document["type"], "valid": document.is_valid, "errors": document.errors(),
    "features": [{"type": f["geometry"]["type"], "coordinates": f["geometry"]["coordinates"],
                  "valid": f.is_valid, "properties": f["properties"]} for f in document["features"]]}))
"""#

/// Reads a CSV file with Python's csv module.
let csvSummaryScript = #"""
import csv, json, sys
with open(sys.argv[1], newline="", encoding="utf-8") as f:
    reader = csv.DictReader(f)
    rows = list(reader)
print(json.dumps({"columns": reader.fieldnames, "rows": rows}))
"""#
