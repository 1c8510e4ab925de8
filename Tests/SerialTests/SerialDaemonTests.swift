import Foundation
import Testing
import TestSupport

/// livelocd with `source = serial` on a pseudo-terminal: a share gets the receiver's fixes, and
/// `status` shows the device's state and rate, through an unplug.
@Suite(.serialized) struct SerialDaemonTests {
    @Test func shareFromASerialReceiverGetsUpdatesAndStatusShowsTheDevice() async throws {
        let harness = try DaemonHarness()
        var receiver = try PseudoReceiver()
        let link = DeviceLink(in: harness.directory)
        defer { link.remove() }
        try link.point(to: receiver.slavePath)
        let daemon = try await DaemonProcess(Paths.executable("livelocd"), [
            "--config", harness.configPath(), "--source", "serial", "--serial.device", link.path,
            "--serial.baud", "9600", "--state_directory", harness.stateDirectory, "--control.socket", harness.socketPath])
        try await daemon.waitForLine(.stderr) { $0.contains("ready:") }
        try await daemon.waitForLine(.stderr) { $0.contains("open at 9600 baud") }

        func source() async throws -> [String: Any] {
            let status = try #require(jsonObject(try await harness.liveloc(["status", "--json"]).stdout))
            return try #require(status["source"] as? [String: Any])
        }
        var state = try await source()
        #expect(state["kind"] as? String == "serial")
        #expect(state["state"] as? String == "connected")
        #expect(state["detail"] as? String == "open at 9600 baud")
        let text = try await harness.liveloc(["status"]).stdout
        #expect(text.contains("serial · connected · open at 9600 baud"), "\(text)")

        let id = try await harness.liveloc(["start", "--duration", "15m"]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)
        receiver.write(Array(try driveExcerpt(epochs: 3).utf8))
        try await daemon.waitForLine(timeout: .seconds(20)) { jsonObject($0)?["shareId"] as? String == id }

        receiver.unplug()
        link.remove()
        try await daemon.waitForLine(.stderr, timeout: .seconds(20)) { $0.contains("unplugged") }
        state = try await source()
        #expect(state["state"] as? String == "disconnected")
        #expect(state["detail"] as? String == "waiting for device")

        receiver = try PseudoReceiver()
        try link.point(to: receiver.slavePath)
        #expect(await eventually(timeout: .seconds(20)) {
            daemon.lines(.stderr).filter { $0.contains("open at 9600 baud") }.count == 2
        })
        #expect(try await source()["state"] as? String == "connected")
        daemon.send(SIGTERM)
        #expect(await daemon.waitForExit() == 0)
    }
}
