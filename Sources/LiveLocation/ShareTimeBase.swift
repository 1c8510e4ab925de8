/// Which clock a share's times are on, and what finds its expiry on CLOCK_BOOTTIME after a restart
/// in the same boot: it travels with the share's state (`ShareSnapshot.timeBase`) into the journal.
///
/// A share's length is measured on the time since boot; its times are that plus an estimate of UTC
/// at boot (`ClockDiscipline`). In the boot `bootID`, the share ends when the time since boot reaches
/// `expiresAt - bootedAt`, whatever the system clock says after a restart.
public struct ShareTimeBase: Sendable, Equatable, Codable {
    /// Whose UTC the times are on.
    public enum Source: UInt8, Sendable, Equatable, Codable {
        /// The system clock while the kernel did not call it synchronized and no fix said otherwise
        /// (1970, the last shutdown's time, an RTC in local time): not to be trusted.
        case systemClock = 0
        /// The system clock, synchronized (NTP, chrony) and, once fixes came, agreeing with them.
        case synchronizedSystemClock = 1
        /// The receiver's UTC (GPS).
        case receiver = 2
    }

    public var source: Source
    /// The boot the times were set in; nil when it could not be read.
    public var bootID: BootID?
    /// UTC at that boot, as estimated when the times were set (or last moved).
    public var bootedAt: Timestamp

    public init(source: Source, bootID: BootID?, bootedAt: Timestamp) {
        self.source = source
        self.bootID = bootID
        self.bootedAt = bootedAt
    }

    /// Whether times on this base are UTC (GPS or a synchronized clock), rather than whatever an
    /// unsynchronized system clock said.
    public var isTrusted: Bool { source != .systemClock }

    /// Whether `other` is a reading of the same boot's time since boot (both boot ids known and equal).
    public func isSameBoot(as other: ShareTimeBase) -> Bool {
        guard let bootID, let otherID = other.bootID else { return false }
        return bootID == otherID
    }
}
