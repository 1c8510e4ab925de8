import Delivery
import Link
import MQTT
import Telegram
import Traccar
import Webhook

/// The kinds of destination livelocd and `liveloc share` know: their keys, options, help and
/// documentation come from each kind's own description (`DestinationKind`). A new destination is
/// a module exporting its kind, and one line here.
package enum DestinationKinds {
    package static let all: [DestinationKind] = [
        WebhookDestination.kind,
        TelegramDestination.kind,
        TraccarDestination.kind,
        MQTTDestination.kind,
        LinkDestination.kind,
    ]
}
