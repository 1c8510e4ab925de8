// RSS probe (bench/json-coding.sh): one request decoded and one reply encoded with JSONCoding,
// linked as livelocd is (the Swift runtime static); prints its VmRSS line.
import Control
import JSONCoding
#if canImport(Glibc)
import Glibc
#endif

let request = Array(#"{"v":1,"op":"start","duration":"8h","id":"van-1"}"#.utf8)
let decoded = try! JSON.decode(ControlRequestLine.self, from: request)
let encoded = try! JSON.encode(ControlResponse.failure(.badDuration, "duration must be \(String(describing: decoded.op))"))
let file = fopen("/proc/self/status", "r")!
var line = [CChar](repeating: 0, count: 256)
while fgets(&line, 256, file) != nil {
    let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if text.hasPrefix("VmRSS") { print("JSONCoding \(encoded.count) B: " + text, terminator: "") }
}
