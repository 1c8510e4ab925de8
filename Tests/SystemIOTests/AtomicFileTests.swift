import Foundation
import SystemIO
import Testing
import TestSupport

@Suite struct AtomicFileTests {
    @Test func anAtomicWriteReplacesTheFileWholeWithOwnerOnlyModeAndLeavesNoTemporary() throws {
        let directory = try Paths.temporaryDirectory("atomic")
        let path = directory.appendingPathComponent("state.json").path
        try AtomicFile.write(Array("old".utf8), to: path)
        try AtomicFile.write(Array("new content".utf8), to: path)
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "new content")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(!FileManager.default.fileExists(atPath: path + ".tmp"))
        try AtomicFile.remove(path)
        try AtomicFile.remove(path)  // absent is fine
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func anAtomicWriteIntoAMissingDirectoryNamesTheTemporaryFile() throws {
        let path = try Paths.temporaryDirectory("atomic").appendingPathComponent("missing/state.json").path
        #expect(throws: SystemError("open", target: path + ".tmp", errno: .noSuchFileOrDirectory)) { try AtomicFile.write([1], to: path) }
    }
}
