import Foundation
import Testing
import TestSupport

/// `liveloc share|fixes --serial` as a person runs them.
@Suite(.serialized) struct SerialCommandTests {
    @Test(arguments: [
        (["share", "--duration", "15m", "--serial", "/dev/ttyACM0", "--baud", "1200"],
         "liveloc: share: invalid value '1200' for --baud: expected auto, 4800, 9600, 19200, 38400, 57600 or 115200\n"),
        (["share", "--duration", "15m", "--serial", "/dev/ttyACM0", "--replay", "x.nmea"],
         "liveloc: share: --serial and --replay exclude each other\n"),
        (["fixes", "--gpsd", "--baud", "9600"], "liveloc: fixes: --baud needs --serial PATH\n"),
        (["fixes", "--serial", ""], "liveloc: fixes: invalid value '' for --serial: expected a device path\n"),
    ])
    func badSerialOptionsAreOneLineAndStatus2(arguments: [String], message: String) async throws {
        let result = try await runProcess(Paths.executable("liveloc"), arguments)
        #expect(result.status == 2)
        #expect(result.stderr == message)
    }

    /// A share from a receiver at 9600 baud: updates as fixes arrive, and SIGINT ends it properly.
    @Test func shareFromASerialReceiverStopsOnSIGINT() async throws {
        let receiver = try PseudoReceiver()
        let link = DeviceLink(in: try Paths.temporaryDirectory("serial-share"))
        defer { link.remove() }
        try link.point(to: receiver.slavePath)
        let state = try Paths.temporaryDirectory("serial-share-state")
        let share = try await DaemonProcess(Paths.executable("liveloc"), [
            "share", "--duration", "15m", "--serial", link.path, "--baud", "9600", "--state-directory", state.path])
        try await share.waitForLine(.stderr) { $0.contains("open at 9600 baud") }
        receiver.write(Array(try driveExcerpt(epochs: 4).utf8))
        try await share.waitForLine(timeout: .seconds(20)) {
            (jsonObject($0)?["location"] as? [String: Any])?["lastUpdateAt"] as? String == "2026-03-14T08:00:03.000Z"
        }
        share.send(SIGINT)
        #expect(await share.waitForExit() == 0)
        let events = share.lines(.stdout).compactMap(jsonObject)
        #expect(events.filter { $0["event"] as? String == "updated" }.count == 5)  // 4 fixes + the final update
        #expect(events.last?["reason"] as? String == "stopped")
    }
}
