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
        #expect(throws: UsageError("unknown option '--sped'")) { try Arguments(["--sped", "1"], options: options) }
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
}
