import ArgumentParsing
import Testing

@Suite struct ArgumentsTests {
    let options: [String: Arguments.Kind] = ["--speed": .value, "--loop": .flag, "--gpsd": .optionalValue]

    @Test func optionValuesAreTakenFromTheNextWordOrAfterAnEqualsSign() throws {
        let a = try Arguments(["--speed", "4", "f.nmea"], options: options)
        #expect(a.value("--speed") == "4")
        #expect(a.operands == ["f.nmea"])
        #expect(try Arguments(["--speed=0"], options: options).value("--speed") == "0")
    }

    @Test func optionalValueTakesTheNextWordOnlyWhenItIsNotAnOption() throws {
        let bare = try Arguments(["--gpsd", "--loop"], options: options)
        #expect(bare.has("--gpsd") && bare.value("--gpsd") == nil && bare.has("--loop"))
        #expect(try Arguments(["--gpsd", "host:2947"], options: options).value("--gpsd") == "host:2947")
    }

    @Test func unknownOptionsAndMissingValuesAreUsageErrors() {
        #expect(throws: UsageError("unknown option '--colour'")) { try Arguments(["--colour", "1"], options: options) }
        #expect(throws: UsageError("option '--speed' needs a value")) { try Arguments(["--speed"], options: options) }
        #expect(throws: UsageError("option '--loop' given more than once")) {
            try Arguments(["--loop", "--loop"], options: options)
        }
    }

    @Test func aLoneDashIsAnOperand() throws {
        #expect(try Arguments(["-"], options: options).operands == ["-"])
    }

    @Test func convertedValuesNameTheOptionWhenInvalid() throws {
        let a = try Arguments(["--speed", "fast"], options: options)
        #expect(throws: UsageError("invalid value 'fast' for --speed: expected a number")) {
            try a.value("--speed", as: "a number", Double.init)
        }
    }
}

@Suite struct RepeatedOptionTests {
    @Test func aRepeatedOptionKeepsEveryValueInOrder() throws {
        let arguments = try Arguments(["--zone", "1,2,3", "--zone=4,5,6", "x"], options: ["--zone": .repeatedValue])
        #expect(arguments.values("--zone") == ["1,2,3", "4,5,6"])
        #expect(arguments.has("--zone") && arguments.operands == ["x"])
        #expect(try Arguments([], options: ["--zone": .repeatedValue]).values("--zone").isEmpty)
        #expect(throws: UsageError("option '--zone' needs a value")) {
            try Arguments(["--zone"], options: ["--zone": .repeatedValue])
        }
    }

    @Test func anUnknownOptionNamesTheNearestKnownOneWhenItIsATypo() {
        let known: [String: Arguments.Kind] = ["--state-directory": .value, "--replay": .value, "--speed": .value]
        #expect(throws: UsageError("unknown option '--sped' (did you mean '--speed'?)")) { try Arguments(["--sped", "1"], options: known) }
        #expect(throws: UsageError("unknown option '--state-dirctory' (did you mean '--state-directory'?)")) {
            try Arguments(["--state-dirctory", "x"], options: known)
        }
        // `_` and `.` count as `-`: a key's spelling of another option is near it.
        #expect(throws: UsageError("unknown option '--state_dirctory' (did you mean '--state-directory'?)")) {
            try Arguments(["--state_dirctory", "x"], options: known)
        }
        #expect(throws: UsageError("unknown option '--x'")) { try Arguments(["--x"], options: known) }
    }

    @Test func anAliasIsTakenAsTheOptionItNamesAndCountsAsIt() throws {
        let known: [String: Arguments.Kind] = ["--replay": .value, "--state-directory": .value]
        let aliases = ["--replay.file": "--replay", "--state_directory": "--state-directory", "--ghost": "--absent"]
        let parsed = try Arguments(["--replay.file", "a.nmea", "--state_directory=/tmp/s"], options: known, aliases: aliases)
        #expect(parsed.value("--replay") == "a.nmea" && parsed.value("--state-directory") == "/tmp/s")
        #expect(throws: UsageError("option '--replay' given more than once")) {
            try Arguments(["--replay", "a", "--replay.file", "b"], options: known, aliases: aliases)
        }
        // An alias of an option the command does not have is no option.
        #expect(throws: UsageError.self) { try Arguments(["--ghost", "1"], options: known, aliases: aliases) }
    }
}
