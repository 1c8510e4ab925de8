/// One entity's MQTT discovery config (`homeassistant/<component>/<object id>/config`).
///
/// Checked against Home Assistant's own schema (home-assistant/core, homeassistant/components/mqtt/
/// schemas.py `MQTT_ENTITY_COMMON_SCHEMA` and `MQTT_ORIGIN_INFO_SCHEMA`, the 2026 version that
/// validates with probatio, and the platforms' schemas in button.py, sensor.py, binary_sensor.py and
/// device_tracker/schema_discovery.py): `default_entity_id` (a whole entity id; `object_id` is no
/// longer read), `origin` with its required `name`, availability as a list of topics with
/// `availability_mode`, and for a device's main entity `name: null` (it is named like the device).
struct HomeAssistantEntityConfig: Encodable, Equatable {
    struct Device: Encodable, Equatable {
        var identifiers: [String]
        var name: String
        var manufacturer = "livelocd"
        var model = "livelocd"
    }

    struct Origin: Encodable, Equatable {
        var name = "livelocd"
    }

    struct Availability: Encodable, Equatable {
        var topic: String
        var payloadAvailable = "online"
        var payloadNotAvailable = "offline"

        enum CodingKeys: String, CodingKey {
            case topic
            case payloadAvailable = "payload_available"
            case payloadNotAvailable = "payload_not_available"
        }
    }

    /// Nil for the device's main entity: written as `null`, never left out (left out, Home
    /// Assistant would name it after the platform's default, "MQTT Device Tracker").
    var name: String?
    var defaultEntityID: String
    var uniqueID: String
    var availability: [Availability]
    var jsonAttributesTopic: String?
    var stateTopic: String?
    var valueTemplate: String?
    var commandTopic: String?
    var payloadPress: String?
    var sourceType: String?
    var deviceClass: String?
    var unitOfMeasurement: String?
    var stateClass: String?
    var entityCategory: String?
    var icon: String?
    /// Seconds after which the broker drops a command not yet delivered (Home Assistant sends it
    /// as the MQTT 5 message expiry of each press).
    var messageExpiryInterval: Int?
    var qos: Int
    var device: Device
    var origin = Origin()

    enum CodingKeys: String, CodingKey {
        case name
        case defaultEntityID = "default_entity_id"
        case uniqueID = "unique_id"
        case availability
        case availabilityMode = "availability_mode"
        case jsonAttributesTopic = "json_attributes_topic"
        case stateTopic = "state_topic"
        case valueTemplate = "value_template"
        case commandTopic = "command_topic"
        case payloadPress = "payload_press"
        case sourceType = "source_type"
        case deviceClass = "device_class"
        case unitOfMeasurement = "unit_of_measurement"
        case stateClass = "state_class"
        case entityCategory = "entity_category"
        case icon
        case messageExpiryInterval = "message_expiry_interval"
        case qos
        case device
        case origin
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        if let name { try container.encode(name, forKey: .name) } else { try container.encodeNil(forKey: .name) }
        try container.encode(defaultEntityID, forKey: .defaultEntityID)
        try container.encode(uniqueID, forKey: .uniqueID)
        try container.encode(availability, forKey: .availability)
        // `all`: available only while every topic says so (the daemon connected and, for the
        // tracker, a share active).
        if availability.count > 1 { try container.encode("all", forKey: .availabilityMode) }
        try container.encodeIfPresent(jsonAttributesTopic, forKey: .jsonAttributesTopic)
        try container.encodeIfPresent(stateTopic, forKey: .stateTopic)
        try container.encodeIfPresent(valueTemplate, forKey: .valueTemplate)
        try container.encodeIfPresent(commandTopic, forKey: .commandTopic)
        try container.encodeIfPresent(payloadPress, forKey: .payloadPress)
        try container.encodeIfPresent(sourceType, forKey: .sourceType)
        try container.encodeIfPresent(deviceClass, forKey: .deviceClass)
        try container.encodeIfPresent(unitOfMeasurement, forKey: .unitOfMeasurement)
        try container.encodeIfPresent(stateClass, forKey: .stateClass)
        try container.encodeIfPresent(entityCategory, forKey: .entityCategory)
        try container.encodeIfPresent(icon, forKey: .icon)
        try container.encodeIfPresent(messageExpiryInterval, forKey: .messageExpiryInterval)
        try container.encode(qos, forKey: .qos)
        try container.encode(device, forKey: .device)
        try container.encode(origin, forKey: .origin)
    }
}

/// The entities livelocd announces on one Home Assistant device (`livelocd_<device>`): the device
/// tracker, the share's state (a `binary_sensor` "Sharing" and a `sensor` with the minutes left), the
/// battery when the device has one, and with `mqtt.commands` the buttons that start, extend and stop
/// a share.
package enum HomeAssistantEntity: String, Sendable, Equatable, CaseIterable {
    case tracker
    case sharing
    case minutesLeft = "minutes_left"
    case battery
    case share15Minutes = "share_15m"
    case share1Hour = "share_1h"
    case share8Hours = "share_8h"
    case stopSharing = "stop"
    case extend15Minutes = "extend_15m"
    case extend1Hour = "extend_1h"

    /// Its platform in Home Assistant (the discovery topic's `<component>`).
    package var component: String {
        switch self {
        case .tracker: "device_tracker"
        case .sharing: "binary_sensor"
        case .minutesLeft, .battery: "sensor"
        case .share15Minutes, .share1Hour, .share8Hours, .stopSharing, .extend15Minutes, .extend1Hour: "button"
        }
    }

    /// The command a button publishes (`payload_press`); nil for the other entities.
    package var command: String? {
        switch self {
        case .share15Minutes: #"{"op":"start","duration":"15m"}"#
        case .share1Hour: #"{"op":"start","duration":"1h"}"#
        case .share8Hours: #"{"op":"start","duration":"8h"}"#
        case .stopSharing: #"{"op":"stop"}"#
        case .extend15Minutes: #"{"op":"extend","duration":"15m"}"#
        case .extend1Hour: #"{"op":"extend","duration":"1h"}"#
        default: nil
        }
    }

    /// The buttons, in the order they are announced.
    package static let buttons: [HomeAssistantEntity] = [.share15Minutes, .share1Hour, .share8Hours, .stopSharing,
                                                         .extend15Minutes, .extend1Hour]
}
