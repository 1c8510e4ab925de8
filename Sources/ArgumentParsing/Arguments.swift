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

    /// Parses `words` (without the program and command names).
    /// - Throws: `UsageError` for an unknown option, a missing value or a repeated option.
    package init(_ words: [String], options: [String: Kind]) throws(UsageError) {
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
            let (name, inlineValue) = Self.split(word)
            guard let kind = options[name] else { throw UsageError("unknown option '\(name)'") }
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

    /// Whether `--name` was given.
    package func has(_ name: String) -> Bool { flags.contains(name) || values[name] != nil || repeated[name] != nil }

    /// The value of `--name` converted by `parse`, or nil when absent.
    /// - Throws: `UsageError` naming the option when the value does not convert.
    package func value<T>(_ name: String, as what: String, _ parse: (String) -> T?) throws(UsageError) -> T? {
        guard let text = values[name] else { return nil }
        guard let value = parse(text) else {
            throw UsageError("invalid value '\(text)' for \(name): expected \(what)")
        }
        return value
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
