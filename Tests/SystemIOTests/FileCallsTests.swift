import Foundation
import SystemIO
import Testing
import TestSupport

/// SystemIO's file calls, as the journal uses them, on real files.
@Suite struct FileCallsTests {
    @Test func makingADirectorySaysWhetherItWasMadeAndNamesThePathWhenItCannot() throws {
        let directory = try Paths.temporaryDirectory("file-calls").appendingPathComponent("state").path
        #expect(try FileSystem.makeDirectory(directory, mode: 0o700))
        #expect(try !FileSystem.makeDirectory(directory, mode: 0o700))
        #expect(FileSystem.exists(directory))
        let missing = directory + "/no/such"
        #expect(throws: SystemError("mkdir", target: missing, errno: .noSuchFileOrDirectory)) {
            try FileSystem.makeDirectory(missing, mode: 0o700)
        }
    }

    @Test func anOpenFileKnowsWhenItsPathNamesAnotherFileOrNone() throws {
        let directory = try Paths.temporaryDirectory("file-calls").path
        let path = directory + "/journal.sqlite"
        let file = try FileDescriptor.openFile(path, FileOpening(.readWrite, creatingWith: 0o600))
        defer { file.close() }
        try file.sync(path: path)
        #expect(try file.status().isSameFile(as: FileStatus(path: path)))
        #expect(try file.status().linkCount == 1)
        // Another name for it is the same file; a file renamed over its path is not.
        try FileSystem.link(path, as: path + ".second")
        #expect(try file.status().isSameFile(as: FileStatus(path: path + ".second")))
        #expect(try file.status().linkCount == 2)
        try Data("other".utf8).write(to: URL(fileURLWithPath: path + ".other"))
        try FileSystem.rename(path + ".other", to: path)
        #expect(try !file.status().isSameFile(as: FileStatus(path: path)))
        try FileSystem.remove(path + ".second")
        #expect(try file.status().linkCount == 0)
        try FileSystem.remove(path)
        try FileSystem.remove(path)  // absent is fine
        #expect(throws: SystemError("stat", target: path, errno: .noSuchFileOrDirectory)) { try FileStatus(path: path) }
    }

    @Test func aMissingFileOpensAsNoneAndAnyOtherFailureIsThrown() throws {
        let directory = try Paths.temporaryDirectory("file-calls").path
        #expect(try FileDescriptor.openForReadingIfPresent(directory + "/absent") == nil)
        #expect(throws: SystemError("open", target: directory, errno: .isDirectory)) {
            try FileDescriptor.openForReadingIfPresent(directory)
        }
        #expect(throws: SystemError("rename", target: directory + "/absent", errno: .noSuchFileOrDirectory)) {
            try FileSystem.rename(directory + "/absent", to: directory + "/b")
        }
    }

    @Test func aFileIsReadableWhenThereAndNotADirectory() throws {
        let directory = try Paths.temporaryDirectory("file-calls").path
        let path = directory + "/ca.pem"
        try Data("-----BEGIN CERTIFICATE-----\n".utf8).write(to: URL(fileURLWithPath: path))
        try FileSystem.checkReadable(path)
        #expect(throws: SystemError("stat", target: directory + "/absent.pem", errno: .noSuchFileOrDirectory)) {
            try FileSystem.checkReadable(directory + "/absent.pem")
        }
        #expect(throws: SystemError("open", target: directory, errno: .isDirectory)) { try FileSystem.checkReadable(directory) }
        #expect(throws: SystemError("stat", target: path + "/x", errno: .notDirectory)) { try FileSystem.checkReadable(path + "/x") }
    }

    /// Nothing is opened: a FIFO without a writer (which a blocking open would wait on) is checked
    /// at once. (A writer comes after 5 s, so that a check that does wait ends, late.)
    @Test func aFIFOIsCheckedWithoutWaitingForAWriter() throws {
        let path = try Paths.temporaryDirectory("file-calls").path + "/fifo"
        try #require(mkfifo(path, 0o600) == 0)
        Thread.detachNewThread {
            Thread.sleep(forTimeInterval: 5)
            let writer = open(path, O_RDWR | O_CLOEXEC)
            if writer >= 0 { close(writer) }
        }
        let started = ContinuousClock.now
        try FileSystem.checkReadable(path)
        #expect(ContinuousClock.now - started < .seconds(1))
    }

    @Test func aFileCreatedTruncatingIsEmptyWithTheModeAsked() throws {
        let path = try Paths.temporaryDirectory("file-calls").path + "/copy"
        try Data("before".utf8).write(to: URL(fileURLWithPath: path))
        let file = try FileDescriptor.openFile(path, FileOpening(.writeOnly, creatingWith: 0o600, truncating: true))
        try file.setPermissions(0o600, path: path)
        file.close()
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
        #expect(try (FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) == 0o600)
    }
}
