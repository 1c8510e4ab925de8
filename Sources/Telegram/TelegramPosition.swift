import LiveLocation

/// A share's position as a Telegram live location shows it: what one request sets, and what an
/// unchanged position is compared by.
package struct TelegramPosition: Sendable, Equatable {
    /// WGS 84 degrees.
    package var latitude: Double
    package var longitude: Double
    /// The radius of uncertainty, metres, at most 1500 (the Bot API's limit); nil when unknown.
    package var horizontalAccuracyMeters: Double?
    /// The direction of travel, degrees 1–360 (north is 360, as the Bot API wants it); nil when
    /// not moving or unknown.
    package var heading: Int?

    /// Below this speed a course is noise (a receiver standing still reports one at random).
    package static let movingSpeedMetersPerSecond = 0.5
    /// The Bot API's largest `horizontal_accuracy`.
    package static let maximumAccuracyMeters = 1500.0

    package init(latitude: Double, longitude: Double, horizontalAccuracyMeters: Double? = nil, heading: Int? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracyMeters = horizontalAccuracyMeters
        self.heading = heading
    }

    /// The position of `location`: accuracy clamped to 0–1500 m, heading from the course while the
    /// speed is at least `movingSpeedMetersPerSecond`.
    package init(_ location: LiveLocation) {
        latitude = location.latitude
        longitude = location.longitude
        horizontalAccuracyMeters = location.accuracyMeters.flatMap { accuracy in
            accuracy.isFinite && accuracy >= 0 ? min(accuracy, Self.maximumAccuracyMeters) : nil
        }
        if let course = location.courseDegreesTrue, course.isFinite,
           let speed = location.speedMetersPerSecond, speed >= Self.movingSpeedMetersPerSecond {
            let degrees = (Int(clampingRounded: course) ?? 0) % 360
            heading = degrees <= 0 ? degrees + 360 : degrees
        } else {
            heading = nil
        }
    }
}
