/// The discovery payload's shape (`homeassistant/device_tracker/<id>/config`).
struct HomeAssistantDiscoveryConfig: Codable, Equatable {
    struct Device: Codable, Equatable {
        var identifiers: [String]
        var name: String
        var manufacturer: String
        var model: String
    }

    var name: String
    var uniqueID: String
    var objectID: String
    var jsonAttributesTopic: String
    var availabilityTopic: String
    var payloadAvailable: String
    var payloadNotAvailable: String
    var sourceType: String
    var qos: Int
    var device: Device

    enum CodingKeys: String, CodingKey {
        case name
        case uniqueID = "unique_id"
        case objectID = "object_id"
        case jsonAttributesTopic = "json_attributes_topic"
        case availabilityTopic = "availability_topic"
        case payloadAvailable = "payload_available"
        case payloadNotAvailable = "payload_not_available"
        case sourceType = "source_type"
        case qos
        case device
    }
}
