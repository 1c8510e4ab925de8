/// The MQTT client could not be set up or started.
package enum MQTTConnectionError: Error, Equatable, Sendable, CustomStringConvertible {
    /// libmosquitto refused a setting, or could not be initialised.
    case library(String)
    case alreadyRunning

    package var description: String {
        switch self {
        case .library(let message): message
        case .alreadyRunning: "the MQTT connection is already running"
        }
    }
}
