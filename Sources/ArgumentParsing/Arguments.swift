/// A command line's options and operands, parsed against what the command declares.
///
/// Options are `--name value` or `--name=value`; flags are `--name`; an option declared with an
/// optional value takes the next word only when it does not start with `-`. `--` ends options.
package struct Arguments: Sendable {
    /// How an option takes its value.
    package enum Kind: Sendable {
        /// `--name`, no value.
        case flag
        /// `--name VALUE`.
        case value
        /// `--name [VALUE]`.
        case optionalValue
        /// `--name VALUE`, as many times as wanted; the values in order (see `values(_:)`).
        case repeatedValue
    }

    package private(set) var operands: [String] = []
    private var values: [String: String] = [:]
    private var flags: Set<String> = []
    private var repeated: [String: [String]] = [:]
    /// How each option given was spelled, where an alias was used (`--log-level` for `--log.level`).
    private var spellings: [String: String] = [:]

    /// Parses `words` (without the program and command names). `aliases` maps another spelling of
    /// an option to the option's own name (livelocd's `--replay.file` for `liveloc share --replay`):
    /// the value is then found under the option's name.
    /// - Throws: `UsageError` for an unknown option (naming the nearest known one when one is
    ///   close: a typo), a missing value or a repeated option.
    package init(_ words: [String], options: [String: Kind], aliases: [String: String] = [:]) throws(UsageError) {
        var index = 0
        var optionsEnded = false
        while index < words.count {
            let word = words[index]
            index += 1
            guard !optionsEnded, word.hasPrefix("-"), word != "-" else {
                operands.append(word)
                continue
            }
            if word == "--" { optionsEnded = true; continue }
            let (spelled, inlineValue) = Self.split(word)
            let name = aliases[spelled].flatMap { options[$0] == nil ? nil : $0 } ?? spelled
            if name != spelled { spellings[name] = spelled }
            guard let kind = options[name] else {
                let nearest = Self.nearest(to: spelled, among: Array(options.keys) + Array(aliases.keys))
                throw UsageError("unknown option '\(spelled)'" + (nearest.map { " (did you mean '\($0)'?)" } ?? ""))
            }
            guard values[name] == nil, !flags.contains(name) else {
                throw UsageError("option '\(name)' given more than once")
            }
            switch kind {
            case .repeatedValue:
                if let inlineValue {
                    repeated[name, default: []].append(inlineValue)
                } else if index < words.count {
                    repeated[name, default: []].append(words[index])
                    index += 1
                } else {
                    throw UsageError("option '\(name)' needs a value")
                }
            case .flag:
                guard inlineValue == nil else { throw UsageError("option '\(name)' takes no value") }
                flags.insert(name)
            case .value:
                if let inlineValue {
                    values[name] = inlineValue
                } else if index < words.count {
                    values[name] = words[index]
                    index += 1
                } else {
                    throw UsageError("option '\(name)' needs a value")
                }
            case .optionalValue:
                flags.insert(name)
                if let inlineValue {
                    values[name] = inlineValue
                } else if index < words.count, !words[index].hasPrefix("-") {
                    values[name] = words[index]
                    index += 1
                }
            }
        }
    }

    /// The value of `--name`, if given.
    package func value(_ name: String) -> String? { values[name] }

    /// Every value of a `repeatedValue` option, in the order given; empty when absent.
    package func values(_ name: String) -> [String] { repeated[name] ?? [] }

    /// `--name` as the command line spelled it: the alias used for it, else the name itself.
    package func spelling(_ name: String) -> String { spellings[name] ?? name }

    /// Whether `--name` was given.
    package func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil || repeated[name] != nil }

    /// The value of `--name` converted by `parse`, or nil when absent.
    /// - Throws: `UsageError` naming the option when the value does not convert.
    package func value<T>(_ name: String, as what: String, _ parse: (String) -> T?) throws(UsageError) -> T? {
        guard let text = values[name] else { return nil }
        guard let value = parse(text) else {
            throw UsageError("invalid value '\(text)' for \(spelling(name)): expected \(what)")
        }
        return value
    }

    /// The known name a mistyped `name` most likely meant: the one fewest edits away (insertions,
    /// deletions, substitutions; `-`, `_` and `.` count as one character), if that is at most a
    /// third of the name's length (at least 1); nil when none is that close.
    static func nearest(to name: String, among known: [String]) -> String? {
        func folded(_ text: String) -> [Character] { text.map { $0 == "_" || $0 == "." ? "-" : $0 } }
        let typed = folded(name)
        let limit = max(1, typed.count / 3)
        let scored = known.map { ($0, editDistance(typed, folded($0))) }.filter { $0.1 <= limit }
        return scored.min { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }?.0
    }

    /// Levenshtein distance between `a` and `b`.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        guard !a.isEmpty else { return b.count }
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }

    private static func split(_ word: String) -> (String, String?) {
        guard let equals = word.firstIndex(of: "=") else { return (word, nil) }
        return (String(word[..<equals]), String(word[word.index(after: equals)...]))
    }
}

/// A mistake in how a command was called; printed as one line, exit status 2.
package struct UsageError: Error, CustomStringConvertible, Equatable, Sendable {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }

    package var description: String { message }
}
