import HTTP
import Telegram
import Testing

/// The outcome classification: one test per kind of Bot API answer.
@Suite("Telegram answers")
struct TelegramReplyTests {
    static let token = "123456:AAHsecret-Token_x"
    static let position = TelegramPosition(latitude: 48.1, longitude: 11.5)
    static let send = TelegramCall.sendLocation(position, livePeriodSeconds: 900)
    static let edit = TelegramCall.editLiveLocation(messageID: 7, position)
    static let stop = TelegramCall.stopLiveLocation(messageID: 7)

    func answer(_ status: Int, _ json: String, retryAfter: Duration? = nil) -> Result<HTTPResponse, HTTPFailure> {
        .success(HTTPResponse(status: status, retryAfter: retryAfter, body: Array(json.utf8)))
    }

    func classify(_ result: Result<HTTPResponse, HTTPFailure>, _ call: TelegramCall) -> TelegramReply {
        TelegramReply.classify(result, to: call, secrets: [Self.token])
    }

    @Test func sendLocationOkGivesTheNewMessagesID() {
        let reply = classify(answer(200, #"{"ok":true,"result":{"message_id":4242,"date":1,"chat":{"id":42,"type":"private"}}}"#), Self.send)
        #expect(reply == .sent(messageID: 4242))
    }

    @Test func editAndStopOkAreDone() {
        let ok = answer(200, #"{"ok":true,"result":{"message_id":7}}"#)
        #expect(classify(ok, Self.edit) == .done)
        #expect(classify(ok, Self.stop) == .done)
        #expect(classify(answer(200, #"{"ok":true,"result":true}"#), Self.edit) == .done)
    }

    @Test func sendLocationOkWithoutAMessageIDIsSentAgain() {
        guard case .retry = classify(answer(200, #"{"ok":true,"result":true}"#), Self.send) else {
            Issue.record("expected retry")
            return
        }
    }

    @Test func messageIsNotModifiedCountsAsDone() {
        let json = #"{"ok":false,"error_code":400,"description":"Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"}"#
        #expect(classify(answer(400, json), Self.edit) == .done)
    }

    @Test func messageCantBeEditedMeansTheLiveLocationIsOverOnTelegramsSide() {
        let json = #"{"ok":false,"error_code":400,"description":"Bad Request: message can't be edited"}"#
        #expect(classify(answer(400, json), Self.edit) == .liveLocationOver(description: "Bad Request: message can't be edited"))
        #expect(classify(answer(400, json), Self.stop) == .liveLocationOver(description: "Bad Request: message can't be edited"))
    }

    @Test func anotherBadRequestRefusesThisMessageForGood() {
        let json = #"{"ok":false,"error_code":400,"description":"Bad Request: message to edit not found"}"#
        #expect(classify(answer(400, json), Self.edit) == .refused(description: "Bad Request: message to edit not found"))
        #expect(classify(answer(400, #"{"ok":false,"error_code":400,"description":"Bad Request: wrong live period specified"}"#), Self.send)
                == .refused(description: "Bad Request: wrong live period specified"))
    }

    @Test func floodControlWaitsTheAnswersRetryAfter() {
        let json = #"{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 3","parameters":{"retry_after":3}}"#
        #expect(classify(answer(429, json, retryAfter: .seconds(1)), Self.edit)
                == .floodWait(retryAfter: .seconds(3), description: "Too Many Requests: retry after 3"))
        // Without parameters, the Retry-After header.
        #expect(classify(answer(429, #"{"ok":false,"error_code":429,"description":"Too Many Requests"}"#, retryAfter: .seconds(5)), Self.send)
                == .floodWait(retryAfter: .seconds(5), description: "Too Many Requests"))
    }

    /// issue 23: a Double → Int64 conversion of `retry_after` trapped from 9.3e15 on (SIGILL).
    @Test func anyRetryAfterNumberIsReadAsAWaitOfAtMostADay() {
        func wait(_ number: String) -> Duration?? {
            let json = #"{"ok":false,"error_code":429,"description":"Too Many Requests","parameters":{"retry_after":"# + number + "}}"
            guard case .floodWait(let retryAfter, _) = classify(answer(429, json), Self.edit) else { return nil }
            return .some(retryAfter)
        }
        for absurd in ["1e19", "9.3e15", "1e308", "18446744073709551616", "9223372036854775807"] {
            #expect(wait(absurd) == .some(.seconds(86_400)), "\(absurd)")
        }
        #expect(wait("3") == .some(.seconds(3)))
        #expect(wait("2.5") == .some(.milliseconds(2500)))
        #expect(wait("-5") == .some(.zero))
        #expect(wait("1e-300") == .some(.zero))
    }

    @Test func aChatTheBotIsNotInMakesTheBotUnusable() {
        let reply = classify(answer(400, #"{"ok":false,"error_code":400,"description":"Bad Request: chat not found"}"#), Self.send)
        #expect(reply == .unusable(reason: "Bad Request: chat not found"))
    }

    @Test func aGroupMigratedToASupergroupNamesTheNewChatID() {
        let json = #"{"ok":false,"error_code":400,"description":"Bad Request: group chat was upgraded to a supergroup chat","parameters":{"migrate_to_chat_id":-1001234567890}}"#
        guard case .unusable(let reason) = classify(answer(400, json), Self.send) else {
            Issue.record("expected unusable")
            return
        }
        #expect(reason.contains("-1001234567890"))
    }

    @Test func aRefusedTokenMakesTheBotUnusableWithoutShowingIt() {
        let json = #"{"ok":false,"error_code":401,"description":"Unauthorized: token 123456:AAHsecret-Token_x"}"#
        guard case .unusable(let reason) = classify(answer(401, json), Self.send) else {
            Issue.record("expected unusable")
            return
        }
        #expect(reason.contains("bot token"))
        #expect(!reason.contains(Self.token))
        #expect(reason.contains(redactionMark))
    }

    @Test func aBlockedOrKickedBotIsUnusable() {
        let json = #"{"ok":false,"error_code":403,"description":"Forbidden: bot was kicked from the group chat"}"#
        guard case .unusable(let reason) = classify(answer(403, json), Self.edit) else {
            Issue.record("expected unusable")
            return
        }
        #expect(reason.contains("Forbidden: bot was kicked from the group chat"))
    }

    @Test func notFoundMeansAWrongAPIURLOrToken() {
        guard case .unusable(let reason) = classify(answer(404, #"{"ok":false,"error_code":404,"description":"Not Found"}"#), Self.send) else {
            Issue.record("expected unusable")
            return
        }
        #expect(reason.contains("API URL"))
    }

    @Test func serverErrorsAreSentAgain() {
        #expect(classify(answer(502, "<html>Bad Gateway</html>"), Self.edit) == .retry(reason: "HTTP 502"))
        #expect(classify(answer(500, #"{"ok":false,"error_code":500,"description":"Internal Server Error"}"#), Self.stop)
                == .retry(reason: "Internal Server Error"))
    }

    @Test func transportErrorsAreSentAgainWithoutTheToken() {
        let reply = classify(.failure(.transport("Failed to connect to api.telegram.org/bot\(Self.token)/x")), Self.send)
        #expect(reply == .retry(reason: "Failed to connect to api.telegram.org/bot<redacted>/x"))
        #expect(classify(.failure(.noResponse("Empty reply from server")), Self.send) == .retry(reason: "Empty reply from server"))
    }

    @Test func aGarbledSuccessIsSentAgain() {
        guard case .retry = classify(answer(200, "<html>captive portal</html>"), Self.edit) else {
            Issue.record("expected retry")
            return
        }
    }
}
