import LiveLocation
import Retry
import SystemIO

/// Fixes from gpsd over its JSON protocol, through libgps.
///
/// `fixes()` connects to gpsd, watches (all receivers, or only `device`), and yields one `Fix` per
/// epoch: the first TPV report of each time that has a position (mode 2 or 3, finite latitude and
/// longitude) and a time. gpsd's partial reports of an epoch with the same time are dropped, and a
/// TPV without time is skipped. `hdop` and `satellitesUsed` are from the latest SKY report (gpsd
/// sends it after the epoch's TPV, so they lag by one epoch).
///
/// The sequence never finishes by itself: when gpsd is not running, stops or restarts, the source
/// reconnects with capped exponential backoff (0.25 s doubling to 8 s, jittered) and logs one line
/// per state change through `log`. Cancelling the consuming task (or dropping the iterator) closes
/// the connection at once. Consumers slower than the receiver see the newest 256 fixes.
package struct GPSDSource: LocationSource {
    package let endpoint: GPSDEndpoint
    /// The receiver to watch (e.g. `/dev/ttyACM0`), or nil for every receiver gpsd has.
    package let device: String?
    private let log: Logger
    private let status = StatePublisher(GPSDConnectionState.connecting)
    private let onRead: (@Sendable (Fix) -> Void)?
    /// Where gpsd's reports are read; nil: on each connection's own thread (`reading(on:)`).
    private var readingThread: ThreadExecutor?

    /// - Parameters:
    ///   - endpoint: where gpsd listens.
    ///   - device: the receiver's path as gpsd knows it, or nil for all.
    ///   - log: gets one line per state change, e.g. `gpsd localhost:2947: connected` (notice); a
    ///     lost connection or a missing receiver is a warning, gpsd's error reports are rate-limited.
    package init(endpoint: GPSDEndpoint = .default, device: String? = nil, log: Logger) {
        self.init(endpoint: endpoint, device: device, log: log, onRead: nil)
    }

    /// As the initializer above; `onRead` is called on the reading thread as soon as `gps_read`
    /// has returned a fix (for measuring the source's own latency).
    package init(endpoint: GPSDEndpoint, device: String?, log: Logger, onRead: (@Sendable (Fix) -> Void)?) {
        self.endpoint = endpoint
        self.device = device
        self.log = log
        self.onRead = onRead
    }

    /// This source with gpsd's reports read on `thread` (the one that consumes the fixes, so that a
    /// report wakes that thread alone; livelocd gives the journal's).
    package func reading(on thread: ThreadExecutor) -> GPSDSource {
        var source = self
        source.readingThread = thread
        return source
    }

    /// The current state; changes while `fixes()` is being consumed.
    package var state: GPSDConnectionState { status.current }

    /// The current state, then every change. Each access gives a new stream.
    package var states: AsyncStream<GPSDConnectionState> { status.subscribe() }

    /// The fixes, until the consuming task is cancelled. Consume one `fixes()` sequence at a time
    /// per source (they share `states`).
    package func fixes() -> LiveFixes {
        LiveFixes { [self] continuation in await run(continuation) }
    }

    private func run(_ continuation: LiveFixes.Continuation) async {
        let name = "gpsd \(endpoint)"
        let log = self.log
        let status = self.status
        var backoff = Backoff()
        var failures = RepeatedFailure()
        status.set(.connecting)
        await LiveSource.run(
            makeSession: {
                GPSDSession(endpoint: endpoint, device: device, readingThread: readingThread, onRead: onRead) { [device] event in
                    Self.report(event, name: name, device: device, status: status, log: log, fixes: continuation)
                }
            },
            delay: { receivedData in
                if receivedData { backoff.reset() }
                return backoff.nextDelay()
            },
            ended: { outcome, delay in
                let reason: String
                let line: String
                switch outcome.end {
                case .cancelled: return
                case .cannotConnect(let why):
                    reason = "cannot connect: \(why)"
                    line = "\(name): cannot connect (\(why)); retrying in \(delay.shortText)"
                case .lost(let why):
                    reason = "connection lost: \(why)"
                    line = "\(name): connection lost (\(why)); retrying in \(delay.shortText)"
                }
                status.set(.disconnected(reason: reason, retryIn: delay))
                // A lost connection is always news; failing to connect again for the same reason is not.
                if case .lost = outcome.end {
                    log.warning(line)
                    failures.forget()
                } else if failures.isNews(reason) {
                    log.warning(line)
                }
            },
            retrying: { status.set(.connecting) })
    }

    /// What a session saw, as the source's state, its fixes and its log.
    private static func report(_ event: GPSDSession.Event, name: String, device: String?, status: StatePublisher<GPSDConnectionState>,
                               log: Logger, fixes continuation: LiveFixes.Continuation) {
        switch event {
        case .connected:
            status.set(.connected)
            log.notice("\(name): connected\(device.map { ", watching \($0)" } ?? "")")
        case .fix(let fix):
            continuation.yield(fix)
            if status.set(.fix(fix.mode)) {
                log.info("\(name): \(fix.mode == .threeDimensional ? "3D" : "2D") fix")
            }
        case .noFix:
            if status.set(.noFix) { log.info("\(name): no fix") }
        case .noReceiver(let device):
            status.set(.noFix)
            log.warning("\(name): \(device.map { "receiver \($0) not attached to gpsd" } ?? "no receiver attached")")
        case .receiverRemoved(let path):
            status.set(.noFix)
            log.warning("\(name): receiver \(path) removed")
        case .gpsdError(let message):
            // gpsd answers every request it cannot do with an ERROR report: one line, then counts.
            log.limited(.warning, key: "\(name) error \(message)", "\(name): gpsd error: \(message)") { count, window in
                "\(name): gpsd error: \(message) (\(count.thousandsSeparated) more in the last \(window.shortText))"
            }
        }
    }
}
