extension StringProtocol {
    /// The range of the first occurrence of `text`, compared as UTF-8 bytes; nil when it does not
    /// occur. For ASCII needles (a URL's "://", words of an error message) this is what the standard
    /// library's `firstRange(of:)` and `contains(_:)` for strings answer, but those come from
    /// _StringProcessing (the regex engine), which the release livelocd then links: 1 MB of code,
    /// and its metadata, relocated pointers and the pages touched around them resident
    /// (bench/daemon-footprint.sh). Use these in daemon-side modules.
    package func firstUTF8Range(of text: some StringProtocol) -> Range<Index>? {
        let needle = Array(text.utf8)
        var start = utf8.startIndex
        while true {
            var position = start, matched = 0
            while matched < needle.count, position != utf8.endIndex, utf8[position] == needle[matched] {
                utf8.formIndex(after: &position)
                matched += 1
            }
            if matched == needle.count { return start..<position }
            if start == utf8.endIndex { return nil }
            utf8.formIndex(after: &start)
        }
    }

    /// Whether `text` occurs in this string, compared as UTF-8 bytes (see `firstUTF8Range(of:)`).
    package func containsUTF8(_ text: some StringProtocol) -> Bool { firstUTF8Range(of: text) != nil }
}
