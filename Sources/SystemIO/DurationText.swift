// The package's one duration formatter, in two readings: exact for messages and logs, coarse for
// what a person reads at a glance (`liveloc status`).
extension Duration {
    /// A short reading for messages and logs: `60 s`, `1.5 s`, `500 ms`, `1250 ms`.
    package var shortText: String {
        let milliseconds = wholeMicroseconds / 1000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        if milliseconds > 1000 && milliseconds % 100 == 0 { return "\(milliseconds / 1000).\(milliseconds % 1000 / 100) s" }
        return "\(milliseconds) ms"
    }

    /// A reading at a glance, coarser the longer it is: `250 ms`, `4.2 s`, `42 s`, `12 min`,
    /// `7 h 59 min`, `2 d 3 h`. Rounded down past 10 s (a countdown never shows more time than
    /// there is); zero and negative durations are `0 s`.
    package var glanceText: String {
        let milliseconds = wholeMicroseconds / 1000
        if milliseconds <= 0 { return "0 s" }
        if milliseconds < 1000 { return "\(milliseconds) ms" }
        if milliseconds < 10_000 {
            let tenths = (milliseconds + 50) / 100
            return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
        }
        let seconds = milliseconds / 1000
        if seconds < 60 { return "\(seconds) s" }
        if seconds < 3600 { return "\(seconds / 60) min" }
        if seconds < 86_400 {
            let minutes = seconds / 60 % 60
            return minutes == 0 ? "\(seconds / 3600) h" : "\(seconds / 3600) h \(minutes) min"
        }
        let hours = seconds / 3600 % 24
        return hours == 0 ? "\(seconds / 86_400) d" : "\(seconds / 86_400) d \(hours) h"
    }
}

// The package's one duration syntax, for configuration keys and command-line options alike.
extension Duration {
    /// The one way durations are written: a number with a unit `ms`, `s`, `m`, `h` or `d` (`500ms`,
    /// `5s`, `1.5m`, `15m`, `1h`, `7d`), a bare number being seconds (`5`). Nil for anything else,
    /// a negative duration, or one over 100 years (no interval here is longer, and a Duration's
    /// milliseconds must fit). Each key or option that allows `off` says so itself.
    package init?(durationText text: String) {
        let units: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
        var number = Substring(text)
        var scale = 1.0
        for unit in units where text.hasSuffix(unit.suffix) {
            number = text.dropLast(unit.suffix.count)
            scale = unit.seconds
            break
        }
        guard let first = number.unicodeScalars.first, ("0"..."9").contains(first) || first == ".",
              let value = Double(number), value.isFinite, value >= 0, value * scale <= 3.2e9 else { return nil }
        self = .milliseconds(Int64((value * scale * 1000).rounded()))
    }

    /// What a message names as the syntax of `init(durationText:)`.
    package static let textSyntax = "a duration such as 500ms, 5s, 15m, 1h or 7d (a bare number is seconds)"
}
