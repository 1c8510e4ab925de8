import Foundation
import Telegram
import Testing
import TestSupport

@Suite("Telegram configuration")
struct TelegramConfigurationTests {
    func tokenFile(_ text: String, mode: Int16) throws -> String {
        let path = try Paths.temporaryDirectory("telegram-token").appendingPathComponent("token").path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    @Test func aPrivateTokenFileIsReadAndNeverShown() throws {
        let path = try tokenFile("123456:AAH-abc_DEF\n", mode: 0o600)
        let token = try BotToken.load(fromFile: path)
        #expect(token.text == "123456:AAH-abc_DEF")
        #expect("\(token)" == "<bot token>")
        let configuration = try TelegramConfiguration(token: token, chat: .id(42), apiURL: "http://127.0.0.1:1/")
        #expect(!"\(configuration)".contains("AAH-abc_DEF"))
        #expect(configuration.apiURL == "http://127.0.0.1:1")
    }

    @Test func aTokenFileOthersMayReadIsRefusedNamingTheFile() throws {
        for mode: Int16 in [0o640, 0o604, 0o644, 0o620] {
            let path = try tokenFile("123456:AAH-abc_DEF\n", mode: mode)
            #expect(throws: TelegramError.tokenFile(.exposed(path: path, mode: mode_t(mode) | S_IFREG))) { try BotToken.load(fromFile: path) }
            do { _ = try BotToken.load(fromFile: path) } catch {
                #expect("\(error)".contains(path) && "\(error)".contains("chmod 600"))
                #expect(!"\(error)".contains("AAH-abc_DEF"))
            }
        }
    }

    @Test func aFileWithoutATokenIsRefusedWithoutShowingItsContent() throws {
        for text in ["", "not a token", "123456:AAH abc", "abc:def", "123:ok\n456:two"] {
            let path = try tokenFile(text, mode: 0o600)
            #expect(throws: TelegramError.invalidToken(path: path)) { try BotToken.load(fromFile: path) }
        }
        #expect(throws: TelegramError.self) { try BotToken.load(fromFile: "/nonexistent/token") }
    }

    @Test func chatsAreIdsOrChannelNames() {
        #expect(TelegramChat("123456789") == .id(123456789))
        #expect(TelegramChat("-1001234567890") == .id(-1001234567890))
        #expect(TelegramChat("@my_channel") == .username("@my_channel"))
        #expect(TelegramChat("42")?.isGroup == false)
        #expect(TelegramChat("-42")?.isGroup == true)
        #expect(TelegramChat("@my_channel")?.isGroup == true)
        #expect(TelegramChat("42")?.minimumInterval == .seconds(1))
        #expect(TelegramChat("-42")?.minimumInterval == .seconds(3))
        for bad in ["", "0", "@ab", "@has space", "chat", "12x"] { #expect(TelegramChat(bad) == nil) }
    }

    @Test func theAPIURLMustBeHTTP() throws {
        let token = try #require(BotToken("1:a"))
        #expect(throws: TelegramError.invalidAPIURL("ftp://x")) { try TelegramConfiguration(token: token, chat: .id(1), apiURL: "ftp://x") }
        #expect(throws: TelegramError.self) { try TelegramConfiguration(token: token, chat: .id(1), apiURL: "http://") }
    }
}
