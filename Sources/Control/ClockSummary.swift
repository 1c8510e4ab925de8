import LiveLocation

/// Where the share's UTC comes from, as `status` shows it (absent for a replay: the log's timeline).
package struct ClockSummary: Codable, Sendable, Equatable {
    package enum Source: String, Codable, Sendable {
        /// The system clock (synchronized, or agreeing with the receiver, or no fix yet).
        case system
        /// The fixes: the receiver's time plus the time since boot elapsed since.
        case gps
    }

    package var source: Source
    /// Whether the kernel calls the system clock synchronized (adjtimex), when the source is `system`.
    package var systemClockSynchronized: Bool?
    /// The system clock minus the receiver's UTC, seconds (negative: behind), when the source is `gps`.
    package var systemClockErrorSeconds: Double?

    package init(source: Source, systemClockSynchronized: Bool? = nil, systemClockErrorSeconds: Double? = nil) {
        self.source = source
        self.systemClockSynchronized = systemClockSynchronized
        self.systemClockErrorSeconds = systemClockErrorSeconds
    }

    package init(_ source: UTCSource) {
        switch source {
        case .systemClock(let synchronized):
            self.init(source: .system, systemClockSynchronized: synchronized)
        case .receiver(let error):
            self.init(source: .gps, systemClockErrorSeconds: Double(error.wholeMilliseconds) / 1000)
        }
    }
}
