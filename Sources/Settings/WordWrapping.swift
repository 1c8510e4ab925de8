/// Text broken into lines of at most `width` characters between words (a word longer than a line
/// gets a line of its own): the first line starts with `first`, the others with `next`. The help of
/// settings and options (livelocd.conf.example, `liveloc share --help`) is written with it.
package enum WordWrapping {
    /// The lines; none when `text` has no word and `first` is only a prefix (`keepsFirst` false),
    /// else at least `first`.
    package static func lines(_ text: String, first: String, next: String, width: Int = 100, keepsFirst: Bool = false) -> [String] {
        lines(words: text.split(separator: " ").map(String.init), first: first, next: next, width: width, keepsFirst: keepsFirst)
    }

    /// The lines of `words`, each word kept whole on one line even if it holds spaces (an option and
    /// its value: `[--webhook-ca-file PATH]`).
    package static func lines(words: [String], first: String, next: String, width: Int = 100, keepsFirst: Bool = false) -> [String] {
        var lines = [first]
        var prefixLength = first.count
        for word in words {
            let line = lines[lines.count - 1]
            let hasWords = line.count > prefixLength
            if hasWords, line.count + 1 + word.count > width {
                lines.append(next + word)
                prefixLength = next.count
            } else {
                lines[lines.count - 1] = line + (hasWords ? " " : "") + word
            }
        }
        if !keepsFirst, lines.count == 1, lines[0].count == first.count { return [] }
        return lines
    }
}
