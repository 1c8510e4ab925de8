/// The `op` of a request, as the wire spells it.
package enum ControlOperation: String, Sendable, CaseIterable, Codable {
    case start
    case stop
    case status
    case track
    case extend
}
