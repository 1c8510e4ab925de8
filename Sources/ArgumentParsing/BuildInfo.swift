import CBuildInfo

/// What `livelocd --version` and `liveloc --version` print: the package version (debian/changelog's
/// first entry) and the git commit the binary was built from, both taken in at compile time.
package enum BuildInfo {
    /// The package version, e.g. `0.9.0-1`, or `unknown version`.
    package static var version: String {
        packageVersion(changelogHead: String(cString: livelocd_changelog_head())) ?? "unknown version"
    }

    /// The commit, e.g. `45a89c8a1b2c` (`+dirty` with uncommitted changes), or `unknown commit`.
    package static var commit: String {
        commitName(fileText: String(cString: livelocd_commit_file())) ?? "unknown commit"
    }

    /// `livelocd 0.9.0-1 (commit 45a89c8a1b2c)`.
    package static func versionLine(program: String) -> String {
        "\(program) \(version) (commit \(commit))"
    }

    /// The version in a changelog's first line, `livelocd (0.9.0-1) bookworm; urgency=medium`:
    /// the text between the first parentheses, if it is a Debian version (digits first, then
    /// letters, digits and `.+-~:`).
    package static func packageVersion(changelogHead text: String) -> String? {
        guard let line = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first,
              let open = line.firstIndex(of: "("), let close = line[open...].firstIndex(of: ")") else { return nil }
        let version = line[line.index(after: open)..<close]
        guard let first = version.unicodeScalars.first, ("0"..."9").contains(first),
              version.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit || ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ".+-~:".unicodeScalars.contains($0) })
        else { return nil }
        return String(version)
    }

    /// The commit in `.build/build-commit`: its first line, if it is hexadecimal with an optional `+dirty`.
    package static func commitName(fileText text: String) -> String? {
        let line = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let hash = line.hasSuffix("+dirty") ? String(line.dropLast(6)) : line
        guard hash.count >= 7, hash.count <= 40, hash.unicodeScalars.allSatisfy({ $0.properties.isASCIIHexDigit }) else { return nil }
        return line
    }
}
