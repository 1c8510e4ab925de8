import Control
import SystemIO
import LiveLocation

/// `liveloc status`'s text: the share the way a chat shows a live-location bubble ("Live location ·
/// updated 4 s ago · 12 min left"), then the share, its end, the source and each destination under
/// it (a destination's last error on a line of its own), laid out for 80 columns.
/// Pure: a status in, lines out; ages are on the daemon's clock (`status.clock`).
enum StatusText {
    /// The lines, without newlines or any other control character: every text in a status may come
    /// from elsewhere (a server's error description, a broker's reason, a daemon of another
    /// version), and is escaped here (`oneLineText`) whatever the daemon did.
    static func lines(_ status: StatusReport) -> [String] {
        composedLines(status).map(oneLineText)
    }

    private static func composedLines(_ status: StatusReport) -> [String] {
        let now = Timestamp(iso8601: status.clock)
        var lines = [headline(status, now: now)]
        if let share = status.share {
            lines.append(row("share", "\(shortID(share.id)) · started \(share.startedAt) · \(count(share.updatesSent, "update"))"))
            lines.append(row("ends", share.expiresAt))
            if let position = share.lastPosition {
                lines.append(row("position", "\(degrees(position.latitude)), \(degrees(position.longitude)) at \(position.time)"))
            }
        } else if let ended = status.ended {
            lines.append(row("share", "\(shortID(ended.id)) · \(ended.startedAt) to \(ended.endedAt)"))
        }
        lines.append(row("source", sourceText(status.source)))
        if let error = status.source.lastError { lines.append(row("", "last error: \(error)")) }
        if let clock = status.clockSource { lines.append(row("clock", clockText(clock))) }
        for destination in status.destinations {
            lines.append(row(destination.name, destinationText(destination)))
            if let error = destination.delivery?.lastError ?? destination.lastError { lines.append(row("", "last error: \(error)")) }
        }
        if let journal = status.journal { lines.append(row("journal", "cannot be written: \(journal)")) }
        for leftover in status.leftovers ?? [] { lines.append(row("leftovers", leftover)) }
        return lines
    }

    /// The bubble's line.
    static func headline(_ status: StatusReport, now: Timestamp?) -> String {
        if let share = status.share {
            var parts = ["Live location"]
            if let position = share.lastPosition {
                let time = Timestamp(iso8601: position.time)
                if let time, let now, time - now >= .seconds(2) {
                    // A fix dated in the clock's future is not "just now": say when, and that it is ahead.
                    parts.append("updated at \(position.time), \((time - now).glanceText) ahead of the clock")
                } else {
                    parts.append(age(since: time, now: now).map {
                        $0 < .seconds(1) ? "updated just now" : "updated \($0.glanceText) ago"
                    } ?? "updated at \(position.time)")
                }
            } else {
                parts.append("waiting for a position")
            }
            if let left = share.secondsLeft {
                parts.append("\(wholeSeconds(left).glanceText) left")
            }
            return parts.joined(separator: " · ")
        }
        if let ended = status.ended {
            let reason = ended.reason == "source-ended" ? "the source ended" : ended.reason
            let ago = age(since: Timestamp(iso8601: ended.endedAt), now: now).map {
                $0 < .seconds(1) ? " · just now" : " · \($0.glanceText) ago"
            } ?? ""
            return "Live location ended\(ago) · \(reason)"
        }
        return "No live location since livelocd started · liveloc start --duration 15m|1h|8h shares one"
    }

    static func sourceText(_ source: SourceStatus) -> String {
        var parts = [source.kind, source.state.rawValue]
        if let detail = source.detail { parts.append(detail) }
        let lastAge = source.lastFixAgeSeconds.map { wholeSeconds($0) }
        switch (source.fix, lastAge) {
        case (true, let age?): parts.append(age < .seconds(1) ? "fix just now" : "fix \(age.glanceText) ago")
        case (false, let age?): parts.append("no fix (last \(age.glanceText) ago)")
        default: parts.append(source.fix ? "fix" : "no fix")
        }
        parts.append(count(source.fixesReceived, "fix", plural: "fixes"))
        return parts.joined(separator: " · ")
    }

    /// Where the share's time comes from: `system clock (synchronized)`, or `from GPS; system clock
    /// 3 h 02 min behind` on a board whose clock nothing set yet.
    static func clockText(_ clock: ClockSummary) -> String {
        switch clock.source {
        case .system:
            return clock.systemClockSynchronized == false ? "system clock (not synchronized; no fix yet)" : "system clock (synchronized)"
        case .gps:
            let error = clock.systemClockErrorSeconds ?? 0
            let seconds = Int64(abs(error).isFinite ? abs(error).rounded() : 0)
            guard seconds >= 2 else { return "from GPS; system clock not synchronized" }
            let side = error < 0 ? "behind" : "ahead"
            if seconds < 60 { return "from GPS; system clock \(seconds) s \(side)" }
            let minutes = (seconds + 30) / 60  // to the nearest minute
            let text = minutes < 60 ? "\(minutes) min" : "\(minutes / 60) h \(minutes % 60 < 10 ? "0" : "")\(minutes % 60) min"
            return "from GPS; system clock \(text) \(side)"
        }
    }

    static func destinationText(_ destination: DestinationSummary) -> String {
        var parts: [String] = []
        if let link = destination.link { parts.append("broker " + (link.reason.map { "\(link.state.rawValue) (\($0))" } ?? link.state.rawValue)) }
        if let shareLink = destination.shareLink { parts.append("link " + shareLink) }
        if let delivery = destination.delivery {
            parts += [delivery.state.rawValue, "\(delivery.pending) pending", "\(delivery.acknowledged) acknowledged",
                      delivery.coalesces == true ? "\(delivery.dropped) coalesced" : "\(delivery.dropped) dropped"]
        } else {
            parts.append("\(destination.delivered) delivered")
            if destination.failed > 0 { parts.append("\(destination.failed) failed") }
        }
        return parts.joined(separator: " · ")
    }

    /// A share id as the status shows it in 80 columns: a random id (a UUID) by its first 8
    /// characters, as short commit ids are (`status --json` has it whole); a caller's id whole.
    static func shortID(_ id: String) -> String {
        let groups = id.split(separator: "-", omittingEmptySubsequences: false)
        let isUUID = id.count == 36 && groups.map(\.count) == [8, 4, 4, 4, 12] && id.allSatisfy { $0 == "-" || $0.isHexDigit }
        return isUUID ? String(id.prefix(8)) : id
    }

    /// Degrees to six decimals (about 0.1 m), as a position is read: `11.558805`, `-0.000001`.
    static func degrees(_ value: Double) -> String {
        guard value.isFinite else { return "\(value)" }
        let micro = Int64((abs(value) * 1_000_000).rounded())
        let fraction = String(micro % 1_000_000)
        return (value < 0 && micro != 0 ? "-" : "") + "\(micro / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count) + fraction
    }

    /// `  name      text`: names in a column.
    private static func row(_ name: String, _ text: String) -> String {
        "  " + name + String(repeating: " ", count: max(1, 10 - name.count)) + text
    }

    private static func age(since time: Timestamp?, now: Timestamp?) -> Duration? {
        guard let time, let now else { return nil }
        return wholeSeconds(Double((now - time).wholeMilliseconds) / 1000)
    }

    /// Seconds rounded down to whole seconds (a bubble counts in whole seconds), never negative.
    static func wholeSeconds(_ seconds: Double) -> Duration {
        Duration(clampingSeconds: seconds.rounded(.down)) ?? .zero
    }

    private static func count(_ number: Int, _ singular: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? singular : plural ?? singular + "s")"
    }
}
