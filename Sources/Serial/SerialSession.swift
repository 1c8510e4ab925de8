import LiveLocation
import NMEA
import SystemIO
#if canImport(Glibc)
import Glibc
#endif

/// One open of a serial receiver, read on a thread of its own that blocks in `poll` (never on the
/// cooperative pool): open (O_NOCTTY, exclusive), raw mode, the baud rate (fixed or detected),
/// then NMEA through the same framer and decoder as `liveloc decode` and the replay, until the
/// device goes away or the session is cancelled.
///
/// `cancel()` writes to a wake-up pipe that the thread polls beside the device, so a blocked
/// thread returns at once; the device is put back as it was and closed on every path
/// (`LiveSession`: the thread and its cancellation).
final class SerialSession: LiveSession {
    /// What the reading thread saw, in order.
    enum Event: Sendable {
        /// The device is open (`device` is where a symbolic link led, if it was one).
        case opened(device: String)
        /// Trying the usual rates for valid NMEA.
        case detecting
        /// A full round of rates without valid NMEA (the receiver may be silent); still trying.
        case noNMEAAtAnyRate
        /// Reading NMEA at `baud`.
        case receiving(baud: Int, detected: Bool)
        /// With automatic baud: no valid sentence for a while; detecting again.
        case silent
        case fix(Fix)
    }

    /// Why the session ended.
    enum End: LiveSessionEnd {
        /// The device is not there (ENOENT, ENODEV, ENXIO at open).
        case absent(String)
        /// It is there but cannot be used (permission, held exclusively, not a terminal, …).
        case cannotOpen(String)
        /// It went away while open: EIO, ENODEV, a hang-up, end of file.
        case unplugged(String)
        case cancelled
    }

    /// How the session ended; `receivedData`: whether valid NMEA arrived (then the next reopen starts its backoff afresh).
    typealias Outcome = LiveSessionOutcome<End>

    let path: String
    let baud: SerialBaud
    let timing: SerialTiming
    private let onEvent: @Sendable (Event) -> Void
    let cancellation = SessionCancellation()

    init(path: String, baud: SerialBaud, timing: SerialTiming, onEvent: @escaping @Sendable (Event) -> Void) {
        self.path = path
        self.baud = baud
        self.timing = timing
        self.onEvent = onEvent
    }

    var threadName: String { "serial reader" }

    func end(threadNotStarted error: SystemError) -> End { .cannotOpen("\(error)") }

    // MARK: - The reading thread

    /// Opens and reads until the device goes away or the session is cancelled.
    func readUntilEnd() -> Outcome {
        let pipe: WakeupPipe
        do { pipe = try WakeupPipe(pollable: true) } catch {
            return Outcome(end: .cannotOpen("\(error)"), receivedData: false)
        }
        // Cancelling writes a byte to the pipe: a blocked `poll` returns at once.
        let registered = cancellation.register { pipe.wake() }
        defer {
            cancellation.unregister()
            pipe.close()
        }
        guard registered else { return Outcome(end: .cancelled, receivedData: false) }

        let device: FileDescriptor
        do {
            device = try FileDescriptor.openTerminal(path)
        } catch {
            switch error.errno {
            case .noSuchFileOrDirectory, .noSuchDevice, .noSuchAddressOrDevice: return Outcome(end: .absent(error.description), receivedData: false)
            default: return Outcome(end: .cannotOpen(error.description), receivedData: false)
            }
        }
        defer { device.close() }
        let original: TerminalSettings
        do {
            try device.makeExclusive()
            original = try device.terminalSettings()
        } catch {
            return Outcome(end: .cannotOpen(error.description), receivedData: false)
        }
        defer { device.restoreTerminal(original) }
        onEvent(.opened(device: resolvedPath()))

        var reader = SerialReader(device: device, wakeup: pipe.reader)
        var receivedData = false
        while true {
            let rate: Int
            var pending: [UInt8] = []
            switch baud {
            case .fixed(let fixed):
                do { try device.configureRaw(baud: fixed) } catch {
                    return Outcome(end: .cannotOpen(error.description), receivedData: receivedData)
                }
                device.discardInput()
                rate = fixed
            case .automatic:
                onEvent(.detecting)
                switch detect(&reader) {
                case .found(let found, let bytes):
                    rate = found
                    pending = bytes
                case .ended(let end):
                    return Outcome(end: end, receivedData: receivedData)
                }
            }
            onEvent(.receiving(baud: rate, detected: baud == .automatic))
            let end = receive(&reader, pending: pending, receivedData: &receivedData)
            guard let end else {
                onEvent(.silent)
                continue
            }
            return Outcome(end: end, receivedData: receivedData)
        }
    }

    private enum Detection {
        case found(baud: Int, bytes: [UInt8])
        case ended(End)
    }

    /// Tries the rates in `SerialBaud.detectionOrder`, round after round, until one yields valid
    /// checksummed sentences; returns it with the bytes read at it (they hold fixes too).
    private func detect(_ reader: inout SerialReader) -> Detection {
        var announced = false
        while true {
            for rate in SerialBaud.detectionOrder {
                do { try reader.device.configureRaw(baud: rate) } catch {
                    return .ended(.cannotOpen(error.description))
                }
                reader.device.discardInput()
                var probe = BaudProbe()
                var kept: [UInt8] = []
                let deadline = ContinuousClock.now + timing.probeWindow
                while true {
                    let now = ContinuousClock.now
                    guard now < deadline else { break }
                    switch reader.read(timeout: deadline - now) {
                    case .ended(let end): return .ended(end)
                    case .idle: continue
                    case .bytes(let bytes):
                        probe.feed(bytes)
                        if kept.count < 1 << 16 { kept.append(contentsOf: bytes) }
                        if probe.recognized { return .found(baud: rate, bytes: kept) }
                    }
                }
            }
            if !announced {
                onEvent(.noNMEAAtAnyRate)
                announced = true
            }
        }
    }

    /// Decodes what arrives until the device goes away (returns why) or, with automatic baud, no
    /// valid sentence arrived for `timing.silence` (returns nil: detect again).
    private func receive(_ reader: inout SerialReader, pending: [UInt8], receivedData: inout Bool) -> End? {
        var decoder = NMEADecoder()
        let onEvent = self.onEvent
        let emit: (Fix) -> Void = { onEvent(.fix($0)) }
        pending.withUnsafeBytes { decoder.feed($0, onFix: emit) }
        var valid = decoder.statistics.sentences + decoder.statistics.ignored
        if valid > 0 { receivedData = true }
        var lastValid = ContinuousClock.now
        var burst = !pending.isEmpty
        let automatic = baud == .automatic
        while true {
            let timeout: Duration?
            if burst {
                timeout = timing.burstGap
            } else if automatic {
                timeout = max(.zero, lastValid + timing.silence - ContinuousClock.now)
            } else {
                timeout = nil
            }
            switch reader.read(timeout: timeout) {
            case .ended(let end):
                if end != .cancelled { decoder.finish(onFix: emit) }
                return end
            case .idle:
                if burst {
                    decoder.flushCompletedEpoch(onFix: emit)
                    burst = false
                } else if automatic && ContinuousClock.now - lastValid >= timing.silence {
                    return nil
                }
            case .bytes(let bytes):
                decoder.feed(bytes, onFix: emit)
                burst = true
                let seen = decoder.statistics.sentences + decoder.statistics.ignored
                if seen != valid {
                    valid = seen
                    lastValid = ContinuousClock.now
                    receivedData = true
                }
            }
        }
    }

    /// Where the path leads (a `/dev/serial/by-id/…` link to `/dev/ttyACM0`), or the path itself.
    private func resolvedPath() -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
