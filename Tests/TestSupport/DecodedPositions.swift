import Foundation

/// A log's positions by fix time (`liveloc decode`): the truth a share's events are checked against.
public func decodedPositions(of log: String) async throws -> [String: (latitude: Double, longitude: Double)] {
    let decoded = try await runProcess(Paths.executable("liveloc"), ["decode", log])
    var result: [String: (latitude: Double, longitude: Double)] = [:]
    for object in decoded.stdoutLines.compactMap(jsonObject) {
        guard let time = object["time"] as? String, let lat = object["lat"] as? Double, let lon = object["lon"] as? Double else { continue }
        result[time] = (lat, lon)
    }
    return result
}
