import Delivery
import Foundation
import LiveLocation
@testable import MQTT
import Locking
import TestSupport

/// What `deliver` saw.
struct RunnerReport: Sendable {
    /// `retry` outcomes, with their reasons.
    var retries: [String] = []
    /// Events sent, re-sends included.
    var sends = 0
}

enum RunnerError: Error, CustomStringConvertible {
    case timedOut(cursor: Int, of: Int, report: RunnerReport)
    case disabled(String)

    var description: String {
        switch self {
        case .timedOut(let cursor, let count, let report):
            "delivered \(cursor) of \(count) events in time; retries: \(report.retries.suffix(3))"
        case .disabled(let reason): "destination disabled: \(reason)"
        }
    }
}

/// Sends `events` through `destination` as a runner does: in queue order, at most
/// `queue.maxInFlight` unacknowledged, and after a `retry` again from the oldest unacknowledged one
/// (after the outcome's wait, at most 2 s here). Returns when every event was acknowledged.
/// - Throws: `RunnerError.timedOut` after `limit`, `.disabled` when the destination says so.
func deliver(_ events: [QueuedEvent], to destination: some Destination, within limit: Duration = .seconds(30),
             onRetry: @Sendable (String) -> Void = { _ in }) async throws -> RunnerReport {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    var report = RunnerReport()
    var cursor = 0
    var next = 0
    var inFlight: [(index: Int, receipt: DeliveryReceipt)] = []
    while cursor < events.count {
        while next < events.count && inFlight.count < destination.queue.maxInFlight {
            inFlight.append((next, destination.send(events[next])))
            report.sends += 1
            next += 1
        }
        let head = inFlight.removeFirst()
        guard let outcome = await outcome(of: head.receipt, before: deadline) else {
            throw RunnerError.timedOut(cursor: cursor, of: events.count, report: report)
        }
        switch outcome {
        case .delivered:
            cursor = head.index + 1
        case .refused:
            cursor = head.index + 1
        case .retry(let reason, let after):
            report.retries.append(reason)
            onRetry(reason)
            inFlight.removeAll()
            next = cursor
            try await Task.sleep(for: min(after ?? .milliseconds(100), .seconds(2)))
        case .notYet(let after):
            inFlight.removeAll()
            next = cursor
            try await Task.sleep(for: min(after, .seconds(2)))
        case .disabled(let reason):
            throw RunnerError.disabled(reason)
        }
        guard clock.now < deadline else { throw RunnerError.timedOut(cursor: cursor, of: events.count, report: report) }
    }
    return report
}

/// The receipt's outcome, or nil when `deadline` comes first.
func outcome(of receipt: DeliveryReceipt, before deadline: ContinuousClock.Instant) async -> DeliveryOutcome? {
    await withTaskGroup(of: DeliveryOutcome?.self) { group in
        group.addTask { await receipt.outcome() }
        group.addTask {
            try? await Task.sleep(until: deadline)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

/// Runs the destination's connection around `body`, then cancels it and waits for it to end.
func whileRunning<T: Sendable>(_ destination: MQTTDestination, _ body: () async throws -> T) async throws -> T {
    let connection = Task { try await destination.run() }
    do {
        let result = try await body()
        connection.cancel()
        try await connection.value
        return result
    } catch {
        connection.cancel()
        _ = try? await connection.value
        throw error
    }
}

/// A share's events as the journal would queue them: `updates` active updates one second apart on
/// a 15-minute share starting now, the final update, and `ended`.
func queuedShare(updates: Int, id: ShareID = .random(), start: Timestamp? = nil,
                 shareLength: Duration = .seconds(900)) -> [QueuedEvent] {
    let start = start ?? Timestamp(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000))
    let expiry = start + shareLength
    func location(_ index: Int, active: Bool) -> LiveLocation {
        LiveLocation(latitude: 48.14 + Double(index) * 0.0001, longitude: 11.55, lastUpdateAt: start + .seconds(Int64(index)),
                     startedAt: start, expiresAt: active ? expiry : start + .seconds(Int64(index)), isActive: active,
                     accuracyMeters: 4.5, speedMetersPerSecond: 8)
    }
    var events = (0..<updates).map { ShareEvent.updated(shareID: id, seq: $0 + 1, location: location($0, active: true)) }
    events.append(.updated(shareID: id, seq: updates + 1, location: location(updates, active: false)))
    events.append(.ended(shareID: id, seq: updates + 2, reason: .stopped))
    return events.enumerated().map { index, event in
        QueuedEvent(position: Int64(index + 1), event: event, json: Array(event.jsonLineBytes.dropLast()))
    }
}

/// A configuration for a test broker: a fast reconnect backoff (0.1 s doubling to 1 s).
func testConfiguration(_ url: String, format: MQTTFormat = .livelocd, device: String = "test-device") throws -> MQTTConfiguration {
    var configuration = MQTTConfiguration(broker: try MQTTBrokerURL(parsing: url), device: device)
    configuration.format = format
    configuration.clientID = "livelocd-test-\(UUID().uuidString.prefix(8))"
    configuration.reconnect = RetryPolicy(base: .milliseconds(100), cap: .seconds(1))
    configuration.connectTimeout = .seconds(5)
    return configuration
}

/// The seq of a livelocd event payload.
func seq(of payload: String) -> Int? {
    guard let range = payload.range(of: "\"seq\":") else { return nil }
    return Int(payload[range.upperBound...].prefix(while: \.isNumber))
}
