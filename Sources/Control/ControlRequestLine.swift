/// A request line as JSON has it, before its fields are checked: every field optional, so that a
/// missing or wrong one gets its own error code.
package struct ControlRequestLine: Codable, Sendable, Equatable {
    package var v: Int?
    package var op: String?
    package var duration: String?

    package init(v: Int?, op: String?, duration: String?) {
        self.v = v
        self.op = op
        self.duration = duration
    }
}
