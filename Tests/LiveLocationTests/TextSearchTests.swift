import LiveLocation
import Testing

@Suite struct TextSearchTests {
    @Test func theFirstOccurrenceIsFoundAsTheStandardLibraryFindsIt() {
        let url = "https://user:secret@example.com/hook?a=b://c"
        let range = url.firstUTF8Range(of: "://")
        #expect(range.map { String(url[..<$0.lowerBound]) } == "https")
        #expect(range.map { String(url[$0.upperBound...]) } == "user:secret@example.com/hook?a=b://c")
        #expect(url.firstUTF8Range(of: "https") == url.startIndex..<url.index(url.startIndex, offsetBy: 5))
        #expect(url.firstUTF8Range(of: "b://c").map { String(url[$0]) } == "b://c", "at the very end")
    }

    @Test func absentTextAndATextLongerThanTheStringAreNotFound() {
        #expect("disk I/O error".firstUTF8Range(of: "://") == nil)
        #expect("dis".firstUTF8Range(of: "disk") == nil)
        #expect("".firstUTF8Range(of: "a") == nil)
        #expect(!"database or disk is full".containsUTF8("Disk"), "bytes: case matters")
        #expect("database or disk is full".containsUTF8("disk"))
    }

    @Test func anEmptyNeedleIsFoundAtTheStartAndSubstringsWork() {
        #expect("abc".firstUTF8Range(of: "") == "abc".startIndex..<"abc".startIndex)
        let message = "Bad Request: chat not found"
        let tail = message[message.index(message.startIndex, offsetBy: 4)...]
        #expect(tail.containsUTF8("chat not found"))
        #expect(!tail.containsUTF8("Bad"))
        #expect("naïve café".containsUTF8("café"), "non-ASCII text compares byte for byte")
    }
}
