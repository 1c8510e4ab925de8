import Settings
import Testing

/// The help of settings and options is wrapped by one helper: lines at most `width` long, broken
/// between words, the first line's prefix and the others' kept.
@Suite struct WordWrappingTests {
    @Test func linesBreakBetweenWordsWithinTheWidthAndKeepTheirPrefixes() {
        let text = "the bot's token, readable by its owner only (default: the systemd credential 'telegram-token')"
        let lines = WordWrapping.lines(text, first: "  --telegram-token-file ", next: "    ", width: 40)
        #expect(lines.allSatisfy { $0.count <= 40 }, "\(lines)")
        #expect(lines[0].hasPrefix("  --telegram-token-file the"))
        #expect(lines.dropFirst().allSatisfy { $0.hasPrefix("    ") && !$0.hasPrefix("     ") })
        #expect(lines.map { $0.dropFirst($0 == lines[0] ? 24 : 4) }.joined(separator: " ") == text[...])
    }

    @Test func aWordLongerThanALineHasALineOfItsOwn() {
        let long = String(repeating: "x", count: 30)
        #expect(WordWrapping.lines("a \(long) b", first: "# ", next: "# ", width: 20) == ["# a", "# \(long)", "# b"])
    }

    @Test func noWordsMeansNoLinesUnlessTheFirstLineIsKept() {
        #expect(WordWrapping.lines("", first: "# ", next: "# ").isEmpty)
        #expect(WordWrapping.lines("  ", first: "  --x  ", next: "      ", keepsFirst: true) == ["  --x  "])
    }
}
