import Control
@testable import Daemon
import LiveLocation
import Delivery
import Locking
import SystemIO
import Testing
import TestSupport

/// What `RemoteCommands` does with each command, against a recording handler: the MQTT side is in
/// MQTTTests (MQTTCommandTests, on a real broker).
@Suite("Commands over MQTT: taking, repeating, refusing")
struct RemoteCommandsTests {
    final class Recorder: Sendable {
        let requests = Locked<[ControlRequest]>([])
        let replies = Locked<[(payload: String, command: RemoteCommand)]>([])
        let lines = LogLines()
    }

    static func commands(_ recorder: Recorder) -> RemoteCommands {
        RemoteCommands(commands: AsyncStream { $0.finish() },
                       reply: { payload, command in
                           recorder.replies.withLock { $0.append((String(decoding: payload, as: UTF8.self), command)) }
                           return nil
                       },
                       handle: { request in
                           recorder.requests.withLock { $0.append(request) }
                           let id = if case .start(_, let id?) = request { id.rawValue } else { "random" }
                           let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)
                           return .success(share: ShareSummary(ShareSnapshot(id: ShareID(rawValue: id), startedAt: start,
                                                                             expiresAt: start + .seconds(900)), now: nil))
                       },
                       log: recorder.lines.logger)
    }

    @Test func thePacketTheBrokerSendsAgainAfterAReconnectIsAnsweredAgainAndNotDone() async {
        let recorder = Recorder()
        let commands = Self.commands(recorder)
        var memory = CommandMemory()
        let press = RemoteCommand(payload: Array(#"{"op":"start","duration":"1h"}"#.utf8), packetID: 7)
        await commands.take(press, memory: &memory)
        await commands.take(press, memory: &memory)  // the same packet again: its PUBACK was lost
        // A second press of the same button: a new packet, done again (a new share, as from the socket).
        await commands.take(RemoteCommand(payload: press.payload, packetID: 8), memory: &memory)
        #expect(recorder.requests.withLock { $0 } == [.start(.oneHour), .start(.oneHour)])
        let replies = recorder.replies.withLock { $0.map(\.payload) }
        #expect(replies.count == 3 && replies[1] == replies[0])
    }

    @Test func theSameCorrelationOrShareIDIsNotDoneTwiceAndARetainedCommandNotAtAll() async {
        let recorder = Recorder()
        let commands = Self.commands(recorder)
        var memory = CommandMemory()
        let correlated = RemoteCommand(payload: Array(#"{"op":"stop"}"#.utf8), packetID: 1, correlationData: [1, 2])
        await commands.take(correlated, memory: &memory)
        await commands.take(RemoteCommand(payload: correlated.payload, packetID: 2, correlationData: [1, 2]), memory: &memory)
        let named = Array(#"{"op":"start","duration":"8h","id":"trip"}"#.utf8)
        await commands.take(RemoteCommand(payload: named, packetID: 3), memory: &memory)
        await commands.take(RemoteCommand(payload: named, packetID: 4), memory: &memory)
        await commands.take(RemoteCommand(payload: Array(#"{"op":"stop"}"#.utf8), packetID: 5, retained: true), memory: &memory)
        #expect(recorder.requests.withLock { $0 } == [.stop, .start(.eightHours, id: ShareID(rawValue: "trip"))])
        #expect(recorder.replies.withLock { $0.count } == 4)  // none for the retained one
        #expect(recorder.lines.all.contains { $0.contains("ignored a retained command") })
    }

    @Test func aRefusedCommandGetsTheSocketsFailureAndIsNotRemembered() async {
        let recorder = Recorder()
        let commands = Self.commands(recorder)
        var memory = CommandMemory()
        let bad = RemoteCommand(payload: Array(#"{"op":"start","duration":"3h"}"#.utf8), packetID: 1)
        await commands.take(bad, memory: &memory)
        await commands.take(bad, memory: &memory)
        #expect(recorder.requests.withLock { $0 }.isEmpty)
        let replies = recorder.replies.withLock { $0.map(\.payload) }
        #expect(replies.count == 2 && replies.allSatisfy { $0.contains(#""code":"bad-duration""#) && $0.contains(#""ok":false"#) })
        // Logged once: the second within the rate limit's window is only counted.
        #expect(recorder.lines.all.filter { $0.contains("refused") }.count == 1)
    }

    /// A broker that lost its state (restarted without persistence) starts a new session and
    /// numbers its packets from 1 again: the same packet identifier and payload there is a new press.
    @Test func theSamePacketInANewSessionOfTheBrokersIsANewCommand() async {
        let recorder = Recorder()
        let commands = Self.commands(recorder)
        var memory = CommandMemory()
        let press = RemoteCommand(payload: Array(#"{"op":"start","duration":"1h"}"#.utf8), packetID: 1, session: 1)
        await commands.take(press, memory: &memory)
        await commands.take(press, memory: &memory)  // sent again in the same session: not done again
        await commands.take(RemoteCommand(payload: press.payload, packetID: 1, session: 2), memory: &memory)
        #expect(recorder.requests.withLock { $0 } == [.start(.oneHour), .start(.oneHour)])
        #expect(recorder.lines.all.filter { $0.contains("came again") }.count == 1)
    }

    /// A command that finds the backlog full gets `busy` at once, where its reply would have gone
    /// (its response topic, its correlation data: the command is handed back with the reply), and
    /// is counted in the log through the rate limit; a retained one stays unanswered.
    @Test func aCommandBeyondTheBacklogIsAnsweredBusyWhereItsReplyGoesAndCounted() async {
        let recorder = Recorder()
        let lines = LogLines(rateWindow: .milliseconds(200))
        let commands = RemoteCommands(commands: AsyncStream { $0.finish() }, reply: { payload, command in
            recorder.replies.withLock { $0.append((String(decoding: payload, as: UTF8.self), command)) }
            return nil
        }, handle: { _ in .success() }, log: lines.logger)
        let command = RemoteCommand(payload: Array(#"{"op":"start","duration":"1h"}"#.utf8), packetID: 40,
                                  responseTopic: "answers/ha", correlationData: [9])
        for number in 1...144 {
            commands.refuse(command, CommandBacklog.Refusal(reason: .full, waiting: 32, refusedSinceStart: number))
        }
        commands.refuse(RemoteCommand(payload: command.payload, packetID: 41, retained: true),
                        CommandBacklog.Refusal(reason: .full, waiting: 32, refusedSinceStart: 145))
        let replies = recorder.replies.withLock { $0 }
        #expect(replies.count == 144)
        #expect(replies.allSatisfy { $0.command == command })
        let answer = ControlResponse(line: Array(replies[0].payload.utf8))
        #expect(answer?.ok == false && answer?.error?.code == .busy, "\(replies[0].payload)")
        #expect(answer?.error?.message.contains("32 commands are waiting") == true)
        // One line at once, the other 143 as one count at the window's end.
        let logged = await lines.waitFor(count: 3, within: .seconds(5)).filter { $0.contains("busy") }
        #expect(logged.count == 2, "\(logged)")
        #expect(logged.first?.contains("1 since start") == true)
        #expect(logged.last == "mqtt: answered 143 more commands busy in the last 200 ms", "\(logged)")
    }

    @Test func packetsAreForgottenSoonerThanRequests() {
        var memory = CommandMemory()
        let now = ContinuousClock.now
        let keys = CommandMemory.keys(of: RemoteCommand(payload: [1], packetID: 9, correlationData: [7]), request: nil)
        #expect(keys == [.correlation([7]), .packet(session: 1, 9, [1])])
        memory.remember(keys, reply: [42], at: now)
        #expect(memory.reply(for: [.packet(session: 1, 9, [1])], at: now + .seconds(119)) == [42])
        #expect(memory.reply(for: [.packet(session: 1, 9, [1])], at: now + .seconds(121)) == nil)
        #expect(memory.reply(for: [.correlation([7])], at: now + .seconds(3600)) == [42])
    }
}
