import Control
import Delivery
import Pipeline

// How the pipeline's states read in the control protocol (which knows neither Pipeline nor Delivery).

extension DeliveryState {
    init(_ state: RunnerState) {
        switch state {
        case .active: self = .active
        case .retrying: self = .retrying
        case .disabled: self = .disabled
        }
    }
}

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
