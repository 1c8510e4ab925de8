import LiveLocation
import Telegram
import Testing

/// What the destination sends for each event, decided without a network.
@Suite("Telegram steps")
struct TelegramStepTests {
    static let share = ShareID(rawValue: "5b1f0f5e-0000-4000-8000-000000000001")
    static let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    static func location(_ latitude: Double = 48.1, duration: Duration = .seconds(900), active: Bool = true,
                         accuracy: Double? = 3.5, speed: Double? = 10, course: Double? = 90) -> LiveLocation {
        LiveLocation(latitude: latitude, longitude: 11.5, lastUpdateAt: start + .seconds(5), startedAt: start,
                     expiresAt: start + duration, isActive: active, accuracyMeters: accuracy,
                     speedMetersPerSecond: speed, courseDegreesTrue: course)
    }

    static func updated(_ location: LiveLocation, seq: Int = 1, share: ShareID = share) -> ShareEvent {
        .updated(shareID: share, seq: seq, location: location)
    }

    static let message = TelegramMessageState(shareID: share, chat: "42", messageID: 9)

    @Test func theFirstUpdateSendsALiveLocationForTheSharesDuration() {
        for (duration, period) in [(Duration.seconds(900), 900), (.seconds(3600), 3600), (.seconds(28800), 28800)] {
            let step = TelegramStep.next(for: Self.updated(Self.location(duration: duration)), message: nil, shown: nil, closed: false)
            #expect(step == .call(.sendLocation(TelegramPosition(latitude: 48.1, longitude: 11.5, horizontalAccuracyMeters: 3.5, heading: 90),
                                                livePeriodSeconds: period)))
        }
    }

    @Test func laterUpdatesEditTheSharesMessage() {
        let step = TelegramStep.next(for: Self.updated(Self.location(48.2), seq: 2), message: Self.message,
                                     shown: TelegramPosition(latitude: 48.1, longitude: 11.5), closed: false)
        #expect(step == .call(.editLiveLocation(messageID: 9, TelegramPosition(latitude: 48.2, longitude: 11.5,
                                                                               horizontalAccuracyMeters: 3.5, heading: 90))))
    }

    @Test func anUnchangedPositionSendsNothing() {
        let location = Self.location()
        let step = TelegramStep.next(for: Self.updated(location, seq: 3), message: Self.message,
                                     shown: TelegramPosition(location), closed: false)
        #expect(step == .nothing(.unchangedPosition))
    }

    @Test func theFinalUpdateMovesTheMessageALastTimeAndEndedStopsIt() {
        let final = Self.location(48.3, active: false)
        #expect(TelegramStep.next(for: Self.updated(final, seq: 4), message: Self.message, shown: nil, closed: false)
                == .call(.editLiveLocation(messageID: 9, TelegramPosition(final))))
        #expect(TelegramStep.next(for: .ended(shareID: Self.share, seq: 5, reason: .stopped), message: Self.message,
                                  shown: nil, closed: false) == .call(.stopLiveLocation(messageID: 9)))
    }

    @Test func aMessageNoLongerLiveGetsNoMoreRequests() {
        #expect(TelegramStep.next(for: Self.updated(Self.location(48.4), seq: 6), message: Self.message, shown: nil, closed: true)
                == .nothing(.messageClosed))
        #expect(TelegramStep.next(for: .ended(shareID: Self.share, seq: 7, reason: .expired), message: Self.message,
                                  shown: nil, closed: true) == .nothing(.messageClosed))
    }

    @Test func aShareWithoutAMessageEndsWithoutARequestOrWithAPlainFinalLocation() {
        #expect(TelegramStep.next(for: .ended(shareID: Self.share, seq: 1, reason: .stopped), message: nil, shown: nil, closed: false)
                == .nothing(.noMessage))
        let final = Self.location(active: false)
        #expect(TelegramStep.next(for: Self.updated(final), message: nil, shown: nil, closed: false)
                == .call(.sendLocation(TelegramPosition(final), livePeriodSeconds: nil)))
    }

    @Test func headingOnlyWhileMovingNorthIs360AndAccuracyIsCappedAt1500() {
        #expect(TelegramPosition(Self.location(speed: 0.2, course: 45)).heading == nil)
        #expect(TelegramPosition(Self.location(speed: nil, course: 45)).heading == nil)
        #expect(TelegramPosition(Self.location(speed: 3, course: 0.2)).heading == 360)
        #expect(TelegramPosition(Self.location(speed: 3, course: 359.6)).heading == 360)
        #expect(TelegramPosition(Self.location(speed: 3, course: 180.4)).heading == 180)
        #expect(TelegramPosition(Self.location(accuracy: 4000)).horizontalAccuracyMeters == 1500)
        #expect(TelegramPosition(Self.location(accuracy: nil)).horizontalAccuracyMeters == nil)
    }

    @Test func requestBodiesUseTheBotAPIsParameterNames() throws {
        let position = TelegramPosition(latitude: 48.1405925, longitude: 11.558804667, horizontalAccuracyMeters: 2.5, heading: 27)
        let send = String(decoding: TelegramCall.sendLocation(position, livePeriodSeconds: 3600).body(chat: .id(-1001234567890)), as: UTF8.self)
        #expect(send == #"{"chat_id":-1001234567890,"heading":27,"horizontal_accuracy":2.5,"latitude":48.1405925,"live_period":3600,"longitude":11.558804667}"#)
        let edit = String(decoding: TelegramCall.editLiveLocation(messageID: 5, TelegramPosition(latitude: 1, longitude: -2))
            .body(chat: .username("@my_channel")), as: UTF8.self)
        #expect(edit == #"{"chat_id":"@my_channel","latitude":1,"longitude":-2,"message_id":5}"#)
        let stop = String(decoding: TelegramCall.stopLiveLocation(messageID: 5).body(chat: .id(42)), as: UTF8.self)
        #expect(stop == #"{"chat_id":42,"message_id":5}"#)
    }

    @Test func anExtendedSharesNextUpdateEditsTheMessageWithTheLongerLivePeriodEvenAtTheSamePosition() {
        let sent = TelegramMessageState(shareID: Self.share, chat: "42", messageID: 9, livePeriodSeconds: 900)
        let extended = Self.location(duration: .seconds(1800))
        let shown = TelegramPosition(extended)
        #expect(TelegramStep.next(for: Self.updated(extended, seq: 2), message: sent, shown: shown, closed: false)
                == .call(.editLiveLocation(messageID: 9, shown, livePeriodSeconds: 3600)))
        // Once the message has that period: plain edits again, none for the same position.
        let edited = TelegramMessageState(shareID: Self.share, chat: "42", messageID: 9, livePeriodSeconds: 3600)
        #expect(TelegramStep.next(for: Self.updated(extended, seq: 3), message: edited, shown: shown, closed: false)
                == .nothing(.unchangedPosition))
        // Past 8 h: the share's length in seconds.
        let long = Self.location(duration: .seconds(8 * 3600 + 1800))
        #expect(TelegramStep.next(for: Self.updated(long, seq: 4), message: edited, shown: nil, closed: false)
                == .call(.editLiveLocation(messageID: 9, TelegramPosition(long), livePeriodSeconds: 8 * 3600 + 1800)))
        // The final update asks for no period; a message whose period is unknown is not extended.
        let final = Self.location(duration: .seconds(1800), active: false)
        #expect(TelegramStep.next(for: Self.updated(final, seq: 5), message: sent, shown: nil, closed: false)
                == .call(.editLiveLocation(messageID: 9, TelegramPosition(final))))
        #expect(TelegramStep.next(for: Self.updated(extended, seq: 2), message: Self.message, shown: nil, closed: false)
                == .call(.editLiveLocation(messageID: 9, shown)))
        let body = String(decoding: TelegramCall.editLiveLocation(messageID: 5, TelegramPosition(latitude: 1, longitude: -2),
                                                                  livePeriodSeconds: 3600).body(chat: .id(42)), as: UTF8.self)
        #expect(body == #"{"chat_id":42,"latitude":1,"live_period":3600,"longitude":-2,"message_id":5}"#)
    }

    @Test func theKeptMessageStateRoundTripsAndIgnoresAnythingElse() {
        let extended = TelegramMessageState(shareID: Self.share, chat: "42", messageID: 9, livePeriodSeconds: 3600)
        #expect(TelegramMessageState(bytes: extended.bytes) == extended)
        let state = TelegramMessageState(shareID: Self.share, chat: "@my_channel", messageID: 123_456_789_012)
        #expect(TelegramMessageState(bytes: state.bytes) == state)
        #expect(TelegramMessageState(bytes: nil) == nil)
        #expect(TelegramMessageState(bytes: Array("garbage".utf8)) == nil)
        #expect(TelegramMessageState(bytes: Array(#"{"v":2,"shareId":"x","chat":"1","messageId":1}"#.utf8)) == nil)
    }
}
