/// `Codable` to and from JSON text without Foundation, so that the daemon links no Foundation at all
/// (its resident memory is the footprint target of bench/daemon-footprint.sh).
///
/// The text is what Foundation's `JSONEncoder` writes with `.sortedKeys` and
/// `.withoutEscapingSlashes` for the types of this project: absent optionals are left out, keys
/// are sorted, no white space. Reading follows `JSONDecoder`: unknown keys are ignored, a missing
/// key or a value of the wrong type is a `DecodingError`.
package enum JSON {
    /// The JSON text of `value`.
    /// - Throws: `EncodingError.invalidValue` for a non-finite number.
    package static func encode(_ value: some Encodable) throws -> [UInt8] {
        try tree(of: value).bytes
    }

    /// `value` as a JSON tree.
    package static func tree(of value: some Encodable) throws -> JSONValue {
        let node = EncodingNode()
        try value.encode(to: TreeEncoder(node: node, codingPath: []))
        return node.value
    }

    /// Reads a `T` from one JSON text.
    /// - Throws: `JSONSyntaxError` when the text is not JSON, `DecodingError` when it is not a `T`.
    package static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try decode(type, from: try JSONValue(parsing: bytes))
    }

    /// Reads a `T` from a JSON tree.
    package static func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        try T(from: TreeDecoder(value: value, codingPath: []))
    }
}

// MARK: - Encoding

/// What one value encodes to, built up by its containers.
private final class EncodingNode {
    enum Content {
        case unset
        case value(JSONValue)
        case object([String: EncodingNode])
        case array([EncodingNode])
    }

    var content = Content.unset

    var value: JSONValue {
        switch content {
        case .unset: .object([:])
        case .value(let value): value
        case .object(let members): .object(members.mapValues(\.value))
        case .array(let elements): .array(elements.map(\.value))
        }
    }

    // Each takes the collection out of `content` before changing it, so that it is not copied.
    func child(forKey key: String) -> EncodingNode {
        var members: [String: EncodingNode] = [:]
        if case .object(let existing) = content { members = existing }
        content = .unset
        let node = EncodingNode()
        members[key] = node
        content = .object(members)
        return node
    }

    func appendedChild() -> EncodingNode {
        var elements: [EncodingNode] = []
        if case .array(let existing) = content { elements = existing }
        content = .unset
        let node = EncodingNode()
        elements.append(node)
        content = .array(elements)
        return node
    }

    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }
}

private struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }
    init(_ index: Int) { intValue = index }
    init?(intValue: Int) { self.intValue = intValue }
    init?(stringValue: String) { nil }
}

private struct TreeEncoder: Encoder {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.content {} else { node.content = .object([:]) }
        return KeyedEncodingContainer(KeyedEncoding(node: node, codingPath: codingPath))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.content {} else { node.content = .array([]) }
        return UnkeyedEncoding(node: node, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueEncoding(node: node, codingPath: codingPath)
    }
}

/// The JSON of a primitive; nil when `value` is not one (it then encodes itself).
private func primitive(_ value: some Encodable, codingPath: [any CodingKey]) throws -> JSONValue? {
    switch value {
    case let value as String: return .string(value)
    case let value as Bool: return .bool(value)
    case let value as Double: return try number(value, codingPath: codingPath)
    case let value as Float: return try number(Double(value), codingPath: codingPath)
    case let value as Int: return .number(String(value))
    case let value as Int64: return .number(String(value))
    case let value as Int32: return .number(String(value))
    case let value as Int16: return .number(String(value))
    case let value as Int8: return .number(String(value))
    case let value as UInt: return .number(String(value))
    case let value as UInt64: return .number(String(value))
    case let value as UInt32: return .number(String(value))
    case let value as UInt16: return .number(String(value))
    case let value as UInt8: return .number(String(value))
    default: return nil
    }
}

/// The shortest text that reads back as `value`, without a `.0` (`3`, `-0`, `1e+16`), as
/// `JSONEncoder` writes it.
private func number(_ value: Double, codingPath: [any CodingKey]) throws -> JSONValue {
    guard value.isFinite else {
        throw EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: "\(value) is not a JSON number"))
    }
    var text = value.description
    if text.hasSuffix(".0") { text.removeLast(2) }
    return .number(text)
}

private func encode(_ value: some Encodable, into node: EncodingNode, codingPath: [any CodingKey]) throws {
    if let json = try primitive(value, codingPath: codingPath) {
        node.content = .value(json)
    } else {
        try value.encode(to: TreeEncoder(node: node, codingPath: codingPath))
    }
}

private struct KeyedEncoding<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil(forKey key: Key) throws { node.child(forKey: key.stringValue).content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try put(value, key) }

    private func put(_ value: some Encodable, _ key: Key) throws {
        try JSONCoding.encode(value, into: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        TreeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(node: node.child(forKey: "super"), codingPath: codingPath)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        TreeEncoder(node: node.child(forKey: key.stringValue), codingPath: codingPath + [key])
    }
}

private struct UnkeyedEncoding: UnkeyedEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    var count: Int { node.count }

    mutating func encodeNil() throws { node.appendedChild().content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = codingPath + [IndexKey(count)]
        try JSONCoding.encode(value, into: node.appendedChild(), codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        TreeEncoder(node: node.appendedChild(), codingPath: codingPath + [IndexKey(count)]).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        TreeEncoder(node: node.appendedChild(), codingPath: codingPath + [IndexKey(count)]).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        TreeEncoder(node: node.appendedChild(), codingPath: codingPath + [IndexKey(count)])
    }
}

private struct SingleValueEncoding: SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws { node.content = .value(.null) }
    mutating func encode<T: Encodable>(_ value: T) throws { try JSONCoding.encode(value, into: node, codingPath: codingPath) }
}

// MARK: - Decoding

private struct TreeDecoder: Decoder {
    let value: JSONValue
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let members) = value else {
            throw mismatch([String: JSONValue].self, value, codingPath)
        }
        return KeyedDecodingContainer(KeyedDecoding(members: members, codingPath: codingPath))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else { throw mismatch([JSONValue].self, value, codingPath) }
        return UnkeyedDecoding(elements: elements, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueDecoding(value: value, codingPath: codingPath)
    }
}

private func mismatch(_ type: Any.Type, _ value: JSONValue, _ codingPath: [any CodingKey]) -> DecodingError {
    .typeMismatch(type, .init(codingPath: codingPath, debugDescription: "expected \(type), found \(value.kindDescription)"))
}

/// Reads `T` from `value`: primitives directly, anything else through its `init(from:)`.
private func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: [any CodingKey]) throws -> T {
    func integer<I: FixedWidthInteger>(_: I.Type) throws -> I {
        guard case .number(let text) = value else { throw mismatch(type, value, codingPath) }
        if let exact = I(text) { return exact }
        // `1.0` or `1e2` is still an integer when it is one exactly.
        if let double = Double(text), double == double.rounded(), let exact = I(exactly: double) { return exact }
        throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription: "\(text) is not a \(I.self)"))
    }
    func floatingPoint() throws -> Double {
        guard case .number(let text) = value, let double = Double(text) else { throw mismatch(type, value, codingPath) }
        return double
    }
    switch type {
    case is String.Type:
        guard case .string(let text) = value else { throw mismatch(type, value, codingPath) }
        return text as! T
    case is Bool.Type:
        guard case .bool(let flag) = value else { throw mismatch(type, value, codingPath) }
        return flag as! T
    case is Double.Type: return try floatingPoint() as! T
    case is Float.Type: return Float(try floatingPoint()) as! T
    case is Int.Type: return try integer(Int.self) as! T
    case is Int64.Type: return try integer(Int64.self) as! T
    case is Int32.Type: return try integer(Int32.self) as! T
    case is Int16.Type: return try integer(Int16.self) as! T
    case is Int8.Type: return try integer(Int8.self) as! T
    case is UInt.Type: return try integer(UInt.self) as! T
    case is UInt64.Type: return try integer(UInt64.self) as! T
    case is UInt32.Type: return try integer(UInt32.self) as! T
    case is UInt16.Type: return try integer(UInt16.self) as! T
    case is UInt8.Type: return try integer(UInt8.self) as! T
    default: return try T(from: TreeDecoder(value: value, codingPath: codingPath))
    }
}

private struct KeyedDecoding<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let members: [String: JSONValue]
    let codingPath: [any CodingKey]

    var allKeys: [Key] { members.keys.compactMap(Key.init(stringValue:)) }

    func contains(_ key: Key) -> Bool { members[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = members[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no value for key \"\(key.stringValue)\""))
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try get(type, key) }

    private func get<T: Decodable>(_ type: T.Type, _ key: Key) throws -> T {
        try JSONCoding.decode(type, from: try member(key), codingPath: codingPath + [key])
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try TreeDecoder(value: try member(key), codingPath: codingPath + [key]).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try TreeDecoder(value: try member(key), codingPath: codingPath + [key]).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        TreeDecoder(value: members["super"] ?? .null, codingPath: codingPath)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(value: try member(key), codingPath: codingPath + [key])
    }
}

private struct UnkeyedDecoding: UnkeyedDecodingContainer {
    let elements: [JSONValue]
    let codingPath: [any CodingKey]
    var currentIndex = 0

    init(elements: [JSONValue], codingPath: [any CodingKey]) {
        self.elements = elements
        self.codingPath = codingPath
    }

    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private mutating func next(_ type: Any.Type) throws -> (JSONValue, [any CodingKey]) {
        let path = codingPath + [IndexKey(currentIndex)]
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "the array has no more elements"))
        }
        defer { currentIndex += 1 }
        return (elements[currentIndex], path)
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd, elements[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let (value, path) = try next(type)
        return try JSONCoding.decode(type, from: value, codingPath: path)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let (value, path) = try next([String: JSONValue].self)
        return try TreeDecoder(value: value, codingPath: path).container(keyedBy: type)
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let (value, path) = try next([JSONValue].self)
        return try TreeDecoder(value: value, codingPath: path).unkeyedContainer()
    }

    mutating func superDecoder() throws -> any Decoder {
        let (value, path) = try next(JSONValue.self)
        return TreeDecoder(value: value, codingPath: path)
    }
}

private struct SingleValueDecoding: SingleValueDecodingContainer {
    let value: JSONValue
    let codingPath: [any CodingKey]

    func decodeNil() -> Bool { value == .null }
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try JSONCoding.decode(type, from: value, codingPath: codingPath)
    }
}
