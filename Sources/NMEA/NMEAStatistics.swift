/// What an `NMEADecoder` has seen so far, line by line.
///
/// Every non-empty line lands in exactly one of `sentences`, `ignored`, `comments`, `badChecksum`,
/// `malformed` or `overlong`.
package struct NMEAStatistics: Sendable, Equatable, CustomStringConvertible {
    /// Non-empty lines (ended by CR, LF or the end of input).
    package var lines = 0
    /// Sentences with a valid (or absent) checksum of a type the decoder understands
    /// (RMC, GGA, GNS, GLL, VTG, GSA, ZDA, GST), from any talker.
    package var sentences = 0
    /// Fixes reported.
    package var fixes = 0
    /// Lines whose checksum did not match their contents.
    package var badChecksum = 0
    /// Lines that are no sentence: no `$`, a garbled checksum field, or bytes that are not printable
    /// ASCII (binary garbage, truncation).
    package var malformed = 0
    /// Sentences longer than `NMEADecoder.maximumSentenceLength`.
    package var overlong = 0
    /// Well-formed sentences of a proprietary (`$P…`) or unhandled type (GSV, AIS, …).
    package var ignored = 0
    /// Comment lines (starting with `#`, as in gpsd's test logs).
    package var comments = 0
    /// Sentences accepted without a checksum field (gpsd accepts them too); also in `sentences`
    /// or `ignored`.
    package var withoutChecksum = 0

    package init() {}

    /// One line, e.g. `lines 120, sentences 100, fixes 20, bad checksum 1, malformed 0, …`.
    package var description: String {
        "lines \(lines), sentences \(sentences), fixes \(fixes), bad checksum \(badChecksum), "
            + "malformed \(malformed), overlong \(overlong), ignored \(ignored), comments \(comments), "
            + "without checksum \(withoutChecksum)"
    }
}
