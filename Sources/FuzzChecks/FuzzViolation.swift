/// An invariant that a component broke on some input: what was checked and what was seen.
public struct FuzzViolation: Error, CustomStringConvertible, Equatable, Sendable {
    /// The invariant, e.g. `latitude in [-90, 90]`.
    public var invariant: String
    /// What broke it, e.g. the offending fix.
    public var detail: String

    public init(_ invariant: String, _ detail: String) {
        self.invariant = invariant
        self.detail = detail
    }

    public var description: String { "\(invariant) violated: \(detail)" }
}
