/// An invariant that a component broke on some input: what was checked and what was seen.
package struct FuzzViolation: Error, CustomStringConvertible, Equatable, Sendable {
    /// The invariant, e.g. `latitude in [-90, 90]`.
    package var invariant: String
    /// What broke it, e.g. the offending fix.
    package var detail: String

    package init(_ invariant: String, _ detail: String) {
        self.invariant = invariant
        self.detail = detail
    }

    package var description: String { "\(invariant) violated: \(detail)" }
}
