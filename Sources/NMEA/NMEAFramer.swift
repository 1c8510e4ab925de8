/// Cuts a stream of bytes into checked NMEA 0183 sentences: the framing half of the decoder, in the
/// shape of swift-nio's `ByteToMessageDecoder` (`decode` for each read, `decodeLast` at the end of
/// input), with a bounded buffer for a sentence cut by a read boundary.
///
/// Lines end at CR or LF. A sentence starts at the last `$` of its line (gpsd resynchronises the
/// same way after garbage) and may be at most `maximumSentenceLength` bytes; its checksum is
/// verified when present (sentences without one are passed on, like gpsd does); bytes that are not
/// printable ASCII make the line malformed. Lines that are no sentence are counted in `statistics`
/// (comments, malformed, overlong, bad checksum) and skipped; what the sentences say is the
/// sentence decoder's business.
///
/// The scan reads eight bytes at a time and stops only at the bytes that matter (`$`, `*`, line
/// ends, control and non-ASCII bytes); the checksum is an exclusive-or over those words.
package struct NMEAFramer: Sendable {
    /// The longest sentence accepted, from `$` to the last checksum digit. NMEA 0183 says 82
    /// including CR LF; real receivers exceed it (gpsd allows about 100), so this is generous.
    package static let maximumSentenceLength = 128

    /// Lines, comments, malformed, overlong, bad-checksum and without-checksum counts (the other
    /// counts are left for the sentence decoder).
    package private(set) var statistics = NMEAStatistics()

    // A line that began in an earlier read.
    private var partialActive = false
    private var partialIsComment = false
    private var partialFirstByte: UInt8 = 0
    private var partialLength = 0
    private var partialSawDollar = false
    private var partialOverflow = false
    /// The partial line from its last `$` (kept only while it fits, so at most
    /// `maximumSentenceLength` + 1 bytes with the line end added to scan it).
    private var carry: [UInt8] = []

    package init() {}

    /// Frames the sentences completed by `bytes` (any chunking: a line may span reads) and passes
    /// each to `onSentence`, in order.
    package mutating func decode(_ bytes: UnsafeRawBufferPointer, _ onSentence: (NMEASentence) -> Void) {
        guard let raw = bytes.baseAddress, bytes.count > 0 else { return }
        let base = raw.assumingMemoryBound(to: UInt8.self)
        let count = bytes.count
        var start = 0
        if partialActive {
            // Finish the carried line with this read's bytes up to its first line end.
            let end = Self.firstLineEnd(base, from: 0, count: count)
            appendPartial(base, count: end)
            guard end < count else { return }
            endPartialLine(onSentence)
            start = end + 1
        }
        while start < count {
            let first = base[start]
            if first == 0x0A || first == 0x0D {  // the LF of a CR LF, or an empty line
                start += 1
                continue
            }
            if first == UInt8(ascii: "$"), let plain = Self.plainSentence(base, start: start, count: count) {
                // The common line in one pass: `$`, a clean body, `*hh`, the line end.
                statistics.lines += 1
                if plain.sum == plain.expected {
                    onSentence(NMEASentence(start: base + start, count: plain.star - start, hasChecksum: true))
                } else {
                    statistics.badChecksum += 1
                }
                start = plain.star + 4
                continue
            }
            let end = Self.firstLineEnd(base, from: start, count: count)
            guard end < count else {
                appendPartial(base + start, count: count - start)
                return
            }
            completeLine(base, start: start, end: end, onSentence)
            start = end + 1
        }
    }

    /// End of input: frames a last line that has no line end.
    package mutating func decodeLast(_ onSentence: (NMEASentence) -> Void) {
        if partialActive { endPartialLine(onSentence) }
    }

    // MARK: The scan

    /// What one pass over a line found: where it ends and, after its last `$`, the exclusive-or of
    /// every byte and the first `*` and the first control or non-ASCII byte.
    private struct LineScan {
        /// The index of the CR or LF that ends the line, or the end of the buffer.
        var end: Int
        /// The last `$`, or -1.
        var dollar = -1
        /// The first `*` after the last `$`, or `Int.max`.
        var firstStar = Int.max
        /// The first byte below 0x20 or above 0x7E after the last `$`, or `Int.max`.
        var firstControl = Int.max
        /// The exclusive-or of the bytes after the last `$`, folded into 8 lanes.
        var sum: UInt64 = 0
    }

    private static let ones: UInt64 = 0x0101_0101_0101_0101
    private static let highs: UInt64 = 0x8080_8080_8080_8080

    /// The bytes of `word` that matter to framing, one flag (bit 7 of a byte) per byte: `special`
    /// for any of `$`, `*`, a byte below 0x20 (CR, LF, other controls) or above 0x7E; `dollar` and
    /// `star` for those two. Each mask may flag bytes above its first real hit (a borrow or carry
    /// runs upwards), never below: at the lowest flag of `special`, every mask is exact.
    @inline(__always)
    private static func flags(_ word: UInt64) -> (special: UInt64, dollar: UInt64, star: UInt64) {
        let control = ((word &- ones &* 0x20) & ~word | ((word &+ ones) | word)) & highs
        let dollarBytes = word ^ (ones &* 0x24)
        let dollar = (dollarBytes &- ones) & ~dollarBytes & highs
        let starBytes = word ^ (ones &* 0x2A)
        let star = (starBytes &- ones) & ~starBytes & highs
        return (control | dollar | star, dollar, star)
    }

    /// Scans from `start` to the first CR or LF (or the end of the buffer).
    @inline(__always)
    private static func scanLine(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> LineScan {
        var scan = LineScan(end: count)
        let raw = UnsafeRawPointer(base)
        var index = start
        while index &+ 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let (special, dollar, star) = Self.flags(word)
            if special == 0 {
                scan.sum ^= word
                index &+= 8
                continue
            }
            let bit = UInt64(special.trailingZeroBitCount)
            let offset = Int(bit >> 3)
            // The bytes before the flagged one are ordinary.
            scan.sum ^= word & ((1 << (bit & ~7)) &- 1)
            let position = index &+ offset
            index = position &+ 1
            if star >> bit & 1 != 0 {
                if position < scan.firstStar { scan.firstStar = position }
                scan.sum ^= UInt64(UInt8(ascii: "*"))
            } else if dollar >> bit & 1 != 0 {
                scan.dollar = position
                scan.firstStar = Int.max
                scan.firstControl = Int.max
                scan.sum = 0
            } else {
                let byte = base[position]
                if byte == 0x0D || byte == 0x0A {
                    scan.end = position
                    return scan
                }
                if position < scan.firstControl { scan.firstControl = position }
                scan.sum ^= UInt64(byte)
            }
        }
        // The last few bytes of the buffer, one at a time.
        while index < count {
            let byte = base[index]
            if byte == 0x0D || byte == 0x0A {
                scan.end = index
                return scan
            } else if byte == UInt8(ascii: "$") {
                scan.dollar = index
                scan.firstStar = Int.max
                scan.firstControl = Int.max
                scan.sum = 0
            } else {
                if byte == UInt8(ascii: "*") && index < scan.firstStar { scan.firstStar = index }
                if (byte < 0x20 || byte > 0x7E) && index < scan.firstControl { scan.firstControl = index }
                scan.sum ^= UInt64(byte)
            }
            index &+= 1
        }
        return scan
    }

    /// The first CR or LF at or after `start`, or `count`: eight bytes at a time, stopping only
    /// at bytes below 0x0E.
    @inline(__always)
    private static func firstLineEnd(_ base: UnsafePointer<UInt8>, from start: Int, count: Int) -> Int {
        let raw = UnsafeRawPointer(base)
        var index = start
        while index &+ 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let low = (word &- ones &* 0x0E) & ~word & highs
            if low == 0 {
                index &+= 8
                continue
            }
            let position = index &+ low.trailingZeroBitCount >> 3
            let byte = base[position]
            if byte == 0x0A || byte == 0x0D { return position }
            index = position &+ 1
        }
        while index < count {
            let byte = base[index]
            if byte == 0x0A || byte == 0x0D { return index }
            index &+= 1
        }
        return count
    }

    /// The common line, `$` + body + `*hh` + CR or LF, with a body of printable ASCII free of `$`
    /// and `*`, at most `maximumSentenceLength` long and wholly in the buffer: found in one pass
    /// that stops only at the `*`. Returns the `*`'s index, the body's exclusive-or and the checksum
    /// field's value; nil for any other line (the full scan then decides what it is).
    @inline(__always)
    private static func plainSentence(_ base: UnsafePointer<UInt8>, start: Int, count: Int)
        -> (star: Int, sum: UInt8, expected: UInt8)? {
        let raw = UnsafeRawPointer(base)
        var sum: UInt64 = 0
        var index = start &+ 1
        while index &+ 8 <= count {
            let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let (special, _, star) = Self.flags(word)
            if special == 0 {
                sum ^= word
                index &+= 8
                continue
            }
            // At the lowest flag every class's mask is exact (see `flags`).
            let bit = UInt64(special.trailingZeroBitCount)
            guard star >> bit & 1 != 0 else { return nil }
            let position = index &+ Int(bit >> 3)
            guard position &+ 3 < count, position &+ 3 &- start <= maximumSentenceLength,
                  base[position &+ 3] == 0x0D || base[position &+ 3] == 0x0A,
                  let high = hexValue(base[position &+ 1]), let low = hexValue(base[position &+ 2])
            else { return nil }
            sum ^= word & ((1 << (bit & ~7)) &- 1)
            sum ^= sum >> 32
            sum ^= sum >> 16
            sum ^= sum >> 8
            return (position, UInt8(truncatingIfNeeded: sum), high << 4 | low)
        }
        return nil
    }

    // MARK: Lines

    /// A line wholly within one read, `start ..< end`, that is not the common shape.
    private mutating func completeLine(_ base: UnsafePointer<UInt8>, start: Int, end: Int,
                                       _ onSentence: (NMEASentence) -> Void) {
        statistics.lines += 1
        let first = base[start]
        if first == UInt8(ascii: "#") {
            statistics.comments += 1
            return
        }
        let scan = Self.scanLine(base, from: start, count: end + 1)
        guard scan.dollar >= 0 else {
            countLineWithoutDollar(length: end - start, first: first)
            return
        }
        guard end - scan.dollar <= Self.maximumSentenceLength else {
            statistics.overlong += 1
            return
        }
        checkSentence(base + scan.dollar, count: end - scan.dollar, scan: scan, onSentence)
    }

    /// `sentence[0]` is `$`; `count` excludes the line end; `scan` covers it.
    @inline(__always)
    private mutating func checkSentence(_ sentence: UnsafePointer<UInt8>, count: Int, scan: LineScan,
                                        _ onSentence: (NMEASentence) -> Void) {
        var end = count
        while end > 1 && (sentence[end - 1] == 0x20 || sentence[end - 1] == 0x09) { end -= 1 }
        // The checksum field, if any: `*` and two hex digits at the end.
        var bodyEnd = end
        var expected: UInt8?
        if end >= 4 && sentence[end - 3] == UInt8(ascii: "*"),
           let high = hexValue(sentence[end - 2]), let low = hexValue(sentence[end - 1]) {
            expected = high << 4 | low
            bodyEnd = end - 3
        }
        // Indices in `scan` are the line's; the sentence starts at `scan.dollar`.
        let firstStar = scan.firstStar == Int.max ? Int.max : scan.firstStar - scan.dollar
        let firstControl = scan.firstControl == Int.max ? Int.max : scan.firstControl - scan.dollar
        guard firstStar >= bodyEnd, firstControl >= bodyEnd else {
            statistics.malformed += 1
            return
        }
        if let expected {
            var sum = scan.sum
            // Take the checksum field and trailing white space back out of the sum.
            for index in bodyEnd..<count { sum ^= UInt64(sentence[index]) }
            sum ^= sum >> 32
            sum ^= sum >> 16
            sum ^= sum >> 8
            guard UInt8(truncatingIfNeeded: sum) == expected else {
                statistics.badChecksum += 1
                return
            }
        } else {
            statistics.withoutChecksum += 1
        }
        onSentence(NMEASentence(start: sentence, count: bodyEnd, hasChecksum: expected != nil))
    }

    /// A line with no `$`: an AIS or other `!` encapsulated sentence (passed over: the sentence
    /// decoder counts it as ignored), or no sentence at all.
    private mutating func countLineWithoutDollar(length: Int, first: UInt8) {
        if length > Self.maximumSentenceLength {
            statistics.overlong += 1
        } else if first == UInt8(ascii: "!") {
            statistics.ignored += 1
        } else {
            statistics.malformed += 1
        }
    }

    // MARK: A line across reads

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
            if carry.capacity == 0 { carry.reserveCapacity(Self.maximumSentenceLength + 1) }
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

    private mutating func endPartialLine(_ onSentence: (NMEASentence) -> Void) {
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
            // The carried sentence, scanned like any other line (a line end appended to stop the scan).
            var line: [UInt8] = []
            swap(&line, &carry)
            line.append(0x0A)
            line.withUnsafeBufferPointer { buffer in
                let base = buffer.baseAddress!
                let scan = Self.scanLine(base, from: 0, count: buffer.count)
                checkSentence(base, count: scan.end, scan: scan, onSentence)
            }
            line.removeAll(keepingCapacity: true)
            swap(&line, &carry)
        }
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
