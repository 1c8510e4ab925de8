import Delivery
import Testing

/// The commands waiting for the daemon, bounded: a burst beyond the backlog is refused command by
/// command (each then answered `busy`), counted, and its end reported once the backlog empties.
@Suite("Commands over MQTT: the backlog")
struct CommandBacklogTests {
    @Test func aBurstOf200FindsRoomFor32AndEveryOtherIsRefusedAndCounted() {
        var backlog = CommandBacklog()
        var admissions: [CommandBacklog.Admission] = []
        for _ in 0..<200 { admissions.append(backlog.arrived()) }
        #expect(admissions.filter { $0 == .take }.count == 32)
        let refusals = admissions.compactMap { if case .refuse(let refusal) = $0 { refusal } else { nil } }
        #expect(refusals.count == 168)
        #expect(refusals.allSatisfy { $0.reason == .full && $0.waiting == 32 })
        #expect(refusals.map(\.refusedSinceStart) == Array(1...168))
        // Done one by one: the burst is reported once, when the last waiting one is done.
        var bursts: [CommandBacklog.Burst] = []
        for _ in 0..<32 { if let burst = backlog.done() { bursts.append(burst) } }
        #expect(bursts == [CommandBacklog.Burst(taken: 32, refused: 168)])
        #expect(backlog.waiting == 0 && backlog.done() == nil)
    }

    @Test func aConsumerThatKeepsUpRefusesNothingAndReportsNoBurst() {
        var backlog = CommandBacklog(capacity: 2)
        for _ in 0..<100 {
            #expect(backlog.arrived() == .take)
            #expect(backlog.done() == nil)
        }
        #expect(backlog.refusedSinceStart == 0)
    }

    @Test func roomMadeByTheConsumerIsTakenAgainAndACommandTheConsumerIsGoneForIsRefused() {
        var backlog = CommandBacklog(capacity: 2)
        #expect(backlog.arrived() == .take)
        #expect(backlog.arrived() == .take)
        #expect(backlog.arrived() == .refuse(.init(reason: .full, waiting: 2, refusedSinceStart: 1)))
        #expect(backlog.done() == nil)
        #expect(backlog.arrived() == .take)
        // Let in, but the stream had ended (the daemon stops): refused, and not waiting.
        #expect(backlog.notHanded() == .init(reason: .closed, waiting: 1, refusedSinceStart: 2))
        #expect(backlog.waiting == 1)
        #expect(backlog.done() == CommandBacklog.Burst(taken: 2, refused: 2))
    }
}
