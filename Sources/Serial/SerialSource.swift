import LiveLocation
import Locking
import SystemIO

/// Fixes from a GNSS receiver on a serial port (a UART, a USB serial adapter, a `/dev/serial/by-id`
/// link), read without gpsd: NMEA 0183 through the same framer and decoder as `liveloc decode` and
/// the replay, so a receiver gives the fixes its log would give replayed.
///
/// The device is opened exclusively (TIOCEXCL), not as a controlling terminal (O_NOCTTY), in raw
/// mode at the configured rate, or at the rate found by trying the usual ones until valid
/// checksummed sentences arrive (`SerialBaud.automatic`; the rate chosen is logged). It is read on
/// a thread of its own. While the device is absent or after it is unplugged (EIO, ENODEV, a
/// hang-up, end of file) the source waits and opens it again with capped backoff (0.25 s doubling
/// to 4 s, jittered); the sequence of fixes does not end, so a share keeps running through the gap.
/// One line per state change goes to `log`. Cancelling the consuming task stops it at once.
/// Consumers slower than the receiver see the newest 256 fixes.
package struct SerialSource: LocationSource {
    /// The device as configured (a link is followed at each open).
    package let path: String
    package let baud: SerialBaud
    private let timing: SerialTiming
    private let log: Logger
    private let status = StatePublisher(SerialSourceState.opening)

    /// - Parameters:
    ///   - path: the device, e.g. `/dev/ttyACM0` or `/dev/serial/by-id/usb-u-blox_…-if00`.
    ///   - baud: a fixed rate or `automatic`.
    ///   - log: gets one line per state change, e.g. `serial /dev/ttyACM0: 9600 baud (detected)`
    ///     (notice); a device missing, unplugged or silent is a warning.
    package init(path: String, baud: SerialBaud = .automatic, timing: SerialTiming = SerialTiming(),
                 log: Logger) {
        self.path = path
        self.baud = baud
        self.timing = timing
        self.log = log
    }

    /// The current state; changes while `fixes()` is being consumed.
    package var state: SerialSourceState { status.current }

    /// The current state, then every change. Each access gives a new stream.
    package var states: AsyncStream<SerialSourceState> { status.subscribe() }

    /// The fixes, until the consuming task is cancelled. Consume one `fixes()` sequence at a time
    /// per source (they share `states`).
    package func fixes() -> LiveFixes {
        LiveFixes { [self] continuation in await run(continuation) }
    }

    private func run(_ continuation: LiveFixes.Continuation) async {
        let name = "serial \(path)"
        let log = self.log
        let status = self.status
        let (path, baud, timing) = (self.path, self.baud, self.timing)
        var backoff = timing.reopenBackoff
        var waits = RepeatedFailure()
        // Set when the session's device is open: where its link led, for the log (empty without a link).
        var opened = Locked<String?>(nil)
        status.set(.opening)
        await LiveSource.run(
            makeSession: {
                // The mode of the latest fix, to log its changes (one line each).
                let lastMode = Locked<Fix.Mode?>(nil)
                let openedNow = Locked<String?>(nil)
                opened = openedNow
                return SerialSession(path: path, baud: baud, timing: timing) { event in
                    Self.report(event, name: name, path: path, timing: timing, opened: openedNow, lastMode: lastMode,
                                status: status, log: log, fixes: continuation)
                }
            },
            delay: { receivedData in
                if receivedData { backoff.reset() }
                // A wait after the device was open is news again, even for the same reason.
                if opened.withLock({ $0 }) != nil { waits.forget() }
                return backoff.nextDelay()
            },
            ended: { outcome, delay in
                switch outcome.end {
                case .cancelled:
                    return
                case .absent(let why):
                    status.set(.waitingForDevice(reason: why))
                    if waits.isNews(why) { log.warning("\(name): waiting for the device (\(why))") }
                case .cannotOpen(let why):
                    status.set(.waitingForDevice(reason: why))
                    if waits.isNews(why) { log.warning("\(name): cannot open (\(why)); retrying in \(delay.shortText)") }
                case .unplugged(let why):
                    status.set(.waitingForDevice(reason: "unplugged: \(why)"))
                    log.warning("\(name): unplugged (\(why)); waiting for it to come back")
                    waits.forget()
                }
            })
    }

    /// What a session saw, as the source's state, its fixes and its log.
    private static func report(_ event: SerialSession.Event, name: String, path: String, timing: SerialTiming,
                               opened: Locked<String?>, lastMode: Locked<Fix.Mode?>, status: StatePublisher<SerialSourceState>,
                               log: Logger, fixes continuation: LiveFixes.Continuation) {
        switch event {
        case .opened(let device):
            opened.withLock { $0 = device == path ? "" : " (\(device))" }
        case .detecting:
            if status.set(.detectingBaud) {
                log.info("\(name): open\(opened.withLock { $0 } ?? ""), detecting the baud rate")
            }
        case .noNMEAAtAnyRate:
            log.limited(.warning, key: "\(name) no NMEA",
                        "\(name): no NMEA at any rate yet (\(SerialBaud.rates.map(String.init).joined(separator: ", ")) baud); still trying") { count, window in
                "\(name): still no NMEA at any rate (\(count.thousandsSeparated) more rounds in the last \(window.shortText))"
            }
        case .receiving(let rate, let detected):
            if status.set(.open(baud: rate, detected: detected)) {
                log.notice(detected ? "\(name): \(rate) baud (detected)"
                    : "\(name): open at \(rate) baud\(opened.withLock { $0 } ?? "")")
            }
        case .silent:
            log.warning("\(name): no valid NMEA for \(timing.silence.shortText); detecting the baud rate again")
        case .fix(let fix):
            continuation.yield(fix)
            let changed = lastMode.withLock { mode -> Bool in
                defer { mode = fix.mode }
                return mode != fix.mode
            }
            if changed { log.info("\(name): \(fix.mode == .threeDimensional ? "3D" : "2D") fix") }
        }
    }
}
