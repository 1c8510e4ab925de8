import Control
import Delivery
import Pipeline

// How a destination's link reads in the control protocol (LinkSummary: its wire form).

extension LinkSummary {
    init(_ link: LinkState) {
        switch link {
        case .connecting: self.init(state: .connecting)
        case .connected: self.init(state: .connected)
        case .refused(let reason): self.init(state: .refused, reason: reason)
        case .disconnected(let reason): self.init(state: .disconnected, reason: reason)
        }
    }
}
