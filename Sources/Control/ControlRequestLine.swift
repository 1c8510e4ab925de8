/// A request line as JSON has it, before its fields are checked: every field optional, so that a
/// missing or wrong one gets its own error code.
package struct ControlRequestLine: Codable, Sendable, Equatable {
    package var v: Int?
    package var op: String?
    package var duration: String?
    /// `start`: the caller's id for the share; absent for a random one.
    package var id: String?
    /// `track`: the share's id; absent for the share recorded last.
    package var share: String?
    /// `track`: the `next` of the page before; absent for the first page.
    package var after: Int64?

    package init(v: Int?, op: String?, duration: String?, share: String? = nil, after: Int64? = nil) {
        self.v = v
        self.op = op
        self.duration = duration
        self.share = share
        self.after = after
    }
}
