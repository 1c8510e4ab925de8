import Control
import LiveLocation
import Testing

/// Request lines become typed requests, or the error code each kind of mistake deserves.
@Suite struct ControlRequestTests {
    private func parse(_ text: String) -> Result<ControlRequest, ControlFailure> { ControlRequest.parse(Array(text.utf8)) }

    @Test func aStartCarriesTheCallersIDWhenItIsOneAndIsABadRequestOtherwise() throws {
        #expect(try parse(#"{"v":1,"op":"start","duration":"1h","id":"order-42:a.b_c"}"#).get()
                == .start(.oneHour, id: ShareID(rawValue: "order-42:a.b_c")))
        for bad in ["", String(repeating: "x", count: 65), "a b", "é", "a/b"] {
            guard case .failure(let failure) = parse(#"{"v":1,"op":"start","duration":"1h","id":"\#(bad)"}"#) else {
                Issue.record("id '\(bad)' was accepted")
                continue
            }
            #expect(failure.code == .badRequest, "id '\(bad)'")
        }
        let line = ControlRequest.start(.fifteenMinutes, id: ShareID(rawValue: "x1")).line
        #expect(try ControlRequest.parse(Array(line.dropLast())).get() == .start(.fifteenMinutes, id: ShareID(rawValue: "x1")))
    }

    @Test func aRemoteCommandIsAStartOrStopWhoseVersionMayBeLeftOut() throws {
        func remote(_ text: String) -> Result<ControlRequest, ControlFailure> { ControlRequest.parseRemoteCommand(Array(text.utf8)) }
        #expect(try remote(#"{"op":"start","duration":"1h"}"#).get() == .start(.oneHour))
        #expect(try remote(#"{"op":"start","duration":"15m","id":"trip-1"}"#).get() == .start(.fifteenMinutes, id: ShareID(rawValue: "trip-1")))
        #expect(try remote(#"{"v":1,"op":"stop"}"#).get() == .stop)
        let failures: [(String, ControlErrorCode)] = [
            (#"{"op":"status"}"#, .unknownOperation), (#"{"op":"track"}"#, .unknownOperation), ("", .badRequest),
            (#"{"op":"start","duration":"2h"}"#, .badDuration), (#"{"v":2,"op":"stop"}"#, .unsupportedVersion),
            (#"{"op":"start","duration":"1h","id":"a b"}"#, .badRequest),
            (#"{"op":"stop","pad":""# + String(repeating: "x", count: 4096) + #""}"#, .tooLarge),
        ]
        for (text, code) in failures {
            guard case .failure(let failure) = remote(text) else { Issue.record("\(text) was taken"); continue }
            #expect(failure.code == code, "\(text)")
        }
    }

    @Test func anExtendCarriesItsAmountOnTheSocketAndOverMQTT() throws {
        #expect(try parse(#"{"v":1,"op":"extend","duration":"15m"}"#).get() == .extend(.fifteenMinutes))
        #expect(try ControlRequest.parseRemoteCommand(Array(#"{"op":"extend","duration":"1h"}"#.utf8)).get() == .extend(.oneHour))
        #expect(String(decoding: ControlRequest.extend(.eightHours).line, as: UTF8.self) == #"{"duration":"8h","op":"extend","v":1}"# + "\n")
    }

    /// A field of the wrong type is named, with the type it must have and what came instead, on the
    /// control socket and over MQTT alike (issue 29, item 12: it was "expected one JSON object").
    @Test(arguments: [
        (#"{"op":"start","duration":15}"#, #""duration" must be a string: "15m", "1h" or "8h" (found the number 15)"#),
        (#"{"op":"start","duration":"1h","id":7}"#, #""id" must be a string: "#),
        (#"{"op":1}"#, #""op" must be a string: "start""#),  // and the others the reader takes
        (#"{"v":"1","op":"stop"}"#, #""v" must be the number 1 (found a string)"#),
        (#"{"op":"stop","v":1.5}"#, #""v" must be the number 1 (found the number 1.5)"#),
        (#"{"op":"track","share":["x"]}"#, #""share" must be a string: a share's id (found an array)"#),
        (#"{"op":"track","after":"1"}"#, #""after" must be a whole number: the "next" of the page before (found a string)"#),
        (#"{"op":"start","duration":true}"#, #""duration" must be a string: "15m", "1h" or "8h" (found a boolean)"#),
    ])
    func aFieldOfTheWrongTypeIsNamedWithTheTypeItMustHave(payload: String, message: String) {
        // The socket's line (with its version) and the same as an MQTT command.
        let socket = payload.contains(#""v""#) ? payload : #"{"v":1,"# + payload.dropFirst()
        for result in [parse(socket), ControlRequest.parseRemoteCommand(Array(payload.utf8))] {
            guard case .failure(let failure) = result else { Issue.record("\(payload) was accepted"); continue }
            #expect(failure.code == .badRequest, "\(payload)")
            #expect(failure.message.hasPrefix(message) && failure.message.contains("(found "), "\(failure.message)")
        }
        // Over MQTT, the operations MQTT takes.
        if case .failure(let op) = ControlRequest.parseRemoteCommand(Array(#"{"op":1}"#.utf8)) {
            #expect(op.message == #""op" must be a string: "start", "stop" or "extend" (found the number 1)"#)
        }
        // What is not one JSON object still says so.
        guard case .failure(let notJSON) = parse("start please") else { Issue.record("accepted"); return }
        #expect(notJSON.message.hasPrefix("expected one JSON object"))
    }

    @Test func theThreeRequestsParseToTheirCases() throws {
        #expect(try parse(#"{"v":1,"op":"start","duration":"1h"}"#).get() == .start(.oneHour))
        #expect(try parse(#"{"v":1,"op":"stop"}"#).get() == .stop)
        #expect(try parse(#"{"op":"status","v":1}"#).get() == .status)
        #expect(try parse(#"{"v":1,"op":"track"}"#).get() == .track(share: nil, after: 0))
        #expect(try parse(#"{"v":1,"op":"track","share":"0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41","after":1000}"#).get()
                == .track(share: ShareID(rawValue: "0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41"), after: 1000))
    }

    @Test(arguments: [
        ("garbage", ControlErrorCode.badRequest), ("[1,2]", .badRequest), (#"{"v":"1","op":"stop"}"#, .badRequest),
        (#"{"op":"stop"}"#, .unsupportedVersion), (#"{"v":2,"op":"stop"}"#, .unsupportedVersion),
        (#"{"v":1}"#, .unknownOperation), (#"{"v":1,"op":"launch"}"#, .unknownOperation),
        (#"{"v":1,"op":"start"}"#, .badDuration), (#"{"v":1,"op":"start","duration":"2h"}"#, .badDuration),
        (#"{"v":1,"op":"track","share":"../../etc"}"#, .badRequest), (#"{"v":1,"op":"track","after":-1}"#, .badRequest),
        (#"{"v":1,"op":"track","after":"1"}"#, .badRequest),
        (#"{"v":1,"op":"extend"}"#, .badDuration), (#"{"v":1,"op":"extend","duration":"30m"}"#, .badDuration),
    ])
    func eachMistakeGetsItsErrorCode(line: String, code: ControlErrorCode) {
        guard case .failure(let failure) = parse(line) else { Issue.record("\(line) was accepted"); return }
        #expect(failure.code == code)
    }

    @Test func everyRequestSurvivesItsOwnLine() throws {
        let requests: [ControlRequest] = ShareDuration.allCases.map { .start($0) } + ShareDuration.allCases.map { .extend($0) }
            + [.stop, .status]
            + [.track(share: nil, after: 0), .track(share: ShareID(rawValue: "0b6c3a9e-7f3e-4c1a-9d0e-2f5b8c7a6d41"), after: 42)]
        for request in requests {
            let line = request.line
            #expect(line.last == UInt8(ascii: "\n"))
            #expect(try ControlRequest.parse(Array(line.dropLast())).get() == request)
        }
    }

    @Test func aFailureReplyReadsAsMessageAndCode() {
        let reply = ControlResponse.failure(.busy, "too many control connections (64 open); try again")
        #expect(String(decoding: reply.line, as: UTF8.self)
            == #"{"error":{"code":"busy","message":"too many control connections (64 open); try again"},"ok":false,"v":1}"# + "\n")
        #expect(reply.error?.description == "too many control connections (64 open); try again (busy)")
    }
}
