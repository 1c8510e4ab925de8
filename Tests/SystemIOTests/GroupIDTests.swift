import Foundation
import SystemIO
import Testing
import TestSupport

/// `groupID(named:groupFile:)`: the group file first, the system's group database only for a name
/// the file does not have.
@Suite struct GroupIDTests {
    private func groupFile(_ text: String) throws -> String {
        let path = try Paths.temporaryDirectory("group").appendingPathComponent("group").path
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        return path
    }

    /// No name here is in the system's database (nor, being this long, plausibly ever will be).
    private let absent = "livelocd-test-no-such-group-\(getpid())"

    @Test func aNameInTheFileGetsTheFilesIdEvenWhereTheSystemKnowsItOtherwise() throws {
        // "root" is 0 in every system database: 4242 can only come from the file.
        let path = try groupFile("# a comment\n\nwheel:x:10:alice\nroot:x:4242:\nlivelocd-ctl:x:997:alice,bob\n")
        #expect(try groupID(named: "root", groupFile: path) == 4242)
        #expect(try groupID(named: "livelocd-ctl", groupFile: path) == 997)
        #expect(try groupID(named: absent, groupFile: try groupFile("\(absent):x:61234:\n")) == 61234)
    }

    @Test func onlyTheWholeNameMatches() throws {
        let path = try groupFile("\(absent)-old:x:500:\nx\(absent):x:501:\n\(absent):x:502:\n")
        #expect(try groupID(named: absent, groupFile: path) == 502)
        #expect(try groupID(named: String(absent.dropLast()), groupFile: path) == nil)
    }

    @Test func aNameNotInTheFileIsAskedOfTheSystemsDatabase() throws {
        let path = try groupFile("wheel:x:10:\n")
        #expect(try groupID(named: "root", groupFile: path) == 0)
        #expect(try groupID(named: absent, groupFile: path) == nil)
    }

    @Test func withoutAGroupFileTheSystemsDatabaseAnswers() throws {
        let path = try Paths.temporaryDirectory("group").appendingPathComponent("absent").path
        #expect(try groupID(named: "root", groupFile: path) == 0)
        #expect(try groupID(named: absent, groupFile: path) == nil)
    }

    @Test func aNumberIsTheIdItself() throws {
        #expect(try groupID(named: "1234", groupFile: try groupFile("1234:x:5:\n")) == 1234)
    }

    @Test(arguments: ["", "ten", "-1", "4294967295", "99999999999"])
    func anEntryWithoutAValidNumericIdIsAnErrorNamingTheFileAndLine(id: String) throws {
        let path = try groupFile("wheel:x:10:\n\(absent):x:\(id):alice\n")
        #expect(throws: GroupLookupError.malformedEntry(path: path, line: 2)) { try groupID(named: absent, groupFile: path) }
        #expect(GroupLookupError.malformedEntry(path: path, line: 2).description == "\(path) line 2: the id is not a number")
    }

    @Test func aLineWithFewerThanThreeFieldsIsNotAnEntry() throws {
        #expect(try groupID(named: absent, groupFile: try groupFile("\(absent):x\n")) == nil)
    }

    @Test func anUnreadableGroupFileIsAnErrorNotAFallback() throws {
        let directory = try Paths.temporaryDirectory("group")
        #expect(throws: GroupLookupError.unreadable(SystemError("read", target: directory.path, errno: .isDirectory))) {
            try groupID(named: "root", groupFile: directory.path)
        }
    }
}
