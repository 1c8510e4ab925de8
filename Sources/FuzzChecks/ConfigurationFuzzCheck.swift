import Daemon
import LiveLocation

/// What the configuration parser must hold on any file text whatever: it does not crash; it either
/// throws a `ConfigurationError` rendered as one line without control characters, or gives a configuration whose values are in
/// their documented ranges.
package enum ConfigurationFuzzCheck {
    package static func violations(in input: [UInt8]) -> [FuzzViolation] {
        var configuration = DaemonConfiguration(environment: [:])
        do {
            try configuration.apply(fileText: String(decoding: input, as: UTF8.self), path: "fuzz.conf")
            try configuration.validate()
        } catch {
            let text = error.description
            let breaksTheLine = text.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == "\u{2028}" || $0 == "\u{2029}" }
            return breaksTheLine || text.isEmpty ? [FuzzViolation("a configuration error is one line without control characters", text)] : []
        }
        var violations: [FuzzViolation] = []
        func check(_ holds: Bool, _ invariant: String) {
            if !holds { violations.append(FuzzViolation(invariant, "\(configuration)")) }
        }
        check(configuration.source.replaySpeed.isFinite && configuration.source.replaySpeed >= 0, "replay.speed finite >= 0")
        check(configuration.source.gpsd.port > 0, "gpsd.port in 1-65535")
        check(configuration.throttle.minInterval.map { $0 > .zero } ?? true, "throttle.min_interval > 0 or off")
        check(configuration.throttle.minDistanceMeters.map { $0.isFinite && $0 > 0 } ?? true, "throttle.min_distance finite > 0 or off")
        check(configuration.stateDirectory.hasPrefix("/"), "state_directory absolute")
        check(!configuration.controlSocket.isEmpty && configuration.controlSocket.utf8.count < 108, "control.socket fits sun_path")
        check(configuration.privacy.grid.map { PrivacyGrid.sizeRange.contains($0.sizeMeters) } ?? true, "privacy.precision 1-100000 m or off")
        check(configuration.privacy.zones.allSatisfy { abs($0.latitude) <= 90 && abs($0.longitude) <= 180 && $0.radiusMeters > 0 },
              "privacy.zone inside the globe with a radius > 0")
        check(configuration.source.kind != .replay || configuration.source.replayFile != nil, "source = replay has replay.file")
        return violations
    }
}
