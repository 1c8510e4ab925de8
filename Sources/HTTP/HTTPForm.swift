/// `application/x-www-form-urlencoded` text (the WHATWG URL standard's form serializer): letters,
/// digits and `*-._` as they are, space as `+`, every other byte of the UTF-8 as `%XX`.
package enum HTTPForm {
    /// `name=value&name=value`, each part encoded.
    package static func encode(_ fields: [(name: String, value: String)]) -> String {
        fields.map { encode(component: $0.name) + "=" + encode(component: $0.value) }.joined(separator: "&")
    }

    /// One name or value, encoded.
    package static func encode(component: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(component.utf8.count)
        for byte in component.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                output.append(byte)
            case UInt8(ascii: " "):
                output.append(UInt8(ascii: "+"))
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
