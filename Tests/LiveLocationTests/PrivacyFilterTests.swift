@testable import LiveLocation
import Testing
import TestSupport


private func position(_ latitude: Double, _ longitude: Double, accuracy: Double? = 3, at seconds: Int64 = 0) -> Fix {
    Fix(time: start + .seconds(seconds), latitude: latitude, longitude: longitude, mode: .threeDimensional,
        altitudeMSLMeters: 520, altitudeHAEMeters: 567, speedMetersPerSecond: 1.4, courseDegreesTrue: 87,
        horizontalAccuracyMeters: accuracy, hdop: 0.9, satellitesUsed: 11)
}

private func distance(_ a: Fix, _ b: Fix) -> Double { a.distanceMeters(to: b) }

@Suite struct PrivacyGridTests {
    static let sizes: [Double] = [1, 7.5, 100, 1000, 10_000, 100_000]

    @Test(arguments: sizes)
    func noSharedPositionIsFurtherFromTheTrueOneThanHalfACellDiagonal(size: Double) {
        let grid = PrivacyGrid(sizeMeters: size)!
        let filter = PrivacyFilter(grid: grid)
        var random = SeededGenerator(seed: UInt64(size * 1000))
        var worst = 0.0
        for index in 0..<20_000 {
            // A third of the positions near the poles, where the cells are narrowest in degrees.
            let latitude = index % 3 == 0 ? Double.random(in: 80...90, using: &random) * (index % 2 == 0 ? 1 : -1)
                                          : Double.random(in: -90...90, using: &random)
            let truth = position(latitude, Double.random(in: -180..<180, using: &random))
            let shared = filter.shared(truth)
            worst = max(worst, distance(truth, shared) / size)
        }
        #expect(worst <= 2.squareRoot() / 2 + 1e-9, "worst error \(worst) × the grid size")
        #expect(worst > 0.6, "the bound is tight: some position is near a cell's corner")
        #expect(grid.maximumErrorMeters == size * 2.squareRoot() / 2)
    }

    @Test func theSameTruePositionAlwaysMapsToTheSameSharedOne() {
        var random = SeededGenerator(seed: 7)
        for _ in 0..<2000 {
            let size = Double.random(in: 1...100_000, using: &random)
            let latitude = Double.random(in: -90...90, using: &random)
            let longitude = Double.random(in: -180..<180, using: &random)
            let first = PrivacyGrid(sizeMeters: size)!.snap(latitude: latitude, longitude: longitude)
            // Another grid of the same size, after other positions were snapped: no state, no randomness.
            let other = PrivacyGrid(sizeMeters: size)!
            _ = other.snap(latitude: -latitude, longitude: longitude / 2)
            let again = other.snap(latitude: latitude, longitude: longitude)
            #expect(first == again)
        }
    }

    @Test func aStationaryDeviceSharesOnePositionHoweverLongItIsWatched() {
        // A receiver's noise around one true place: every sample lands in a handful of cells, each
        // shared as its fixed centre, so averaging the shared positions converges on cell centres,
        // not on the true place.
        let filter = PrivacyFilter(grid: PrivacyGrid(sizeMeters: 500)!)
        var random = SeededGenerator(seed: 11)
        var shared: Set<String> = []
        for second in 0..<5000 {
            let noisy = position(48.137_154 + Double.random(in: -2e-5...2e-5, using: &random),
                                 11.576_124 + Double.random(in: -3e-5...3e-5, using: &random), at: Int64(second))
            let out = filter.shared(noisy)
            shared.insert("\(out.latitude),\(out.longitude)")
        }
        #expect(shared.count <= 4, "\(shared)")
    }

    @Test func everyPositionOfACellMapsToItsCentreAndNeighbouringCellsDiffer() {
        let grid = PrivacyGrid(sizeMeters: 1000)!
        let centre = grid.snap(latitude: 52.52, longitude: 13.405)
        // The centre maps to itself, and points a few metres around it to the same centre.
        #expect(grid.snap(latitude: centre.latitude, longitude: centre.longitude) == centre)
        for (dLat, dLon) in [(0.001, 0.001), (-0.001, 0.002), (0.003, -0.005)] {
            #expect(grid.snap(latitude: centre.latitude + dLat, longitude: centre.longitude + dLon) == centre)
        }
        // 1 km north is another band.
        #expect(grid.snap(latitude: centre.latitude + 0.009, longitude: centre.longitude).latitude > centre.latitude)
    }

    @Test func longitudesWrapAndPolesAreCells() {
        let grid = PrivacyGrid(sizeMeters: 1000)!
        #expect(grid.snap(latitude: 10, longitude: 180) == grid.snap(latitude: 10, longitude: -180))
        #expect(grid.snap(latitude: 10, longitude: 540) == grid.snap(latitude: 10, longitude: 180))
        let north = grid.snap(latitude: 90, longitude: 17)
        #expect(north.latitude < 90 && north.latitude > 89.99)
        let pole = position(90, 17)
        #expect(distance(pole, position(north.latitude, north.longitude)) <= grid.maximumErrorMeters)
    }

    @Test func gridSizesOutsideOneMetreTo100KilometresAreRefused() {
        #expect(PrivacyGrid(sizeMeters: 0.5) == nil)
        #expect(PrivacyGrid(sizeMeters: 100_001) == nil)
        #expect(PrivacyGrid(sizeMeters: .nan) == nil)
        #expect(PrivacyGrid(sizeMeters: 1) != nil)
    }
}

@Suite struct PrivacyFilterTests {
    @Test func offSharesTheFixAsItIs() {
        let fix = position(48.1, 11.5)
        #expect(PrivacyFilter.off.shared(fix) == fix)
    }

    @Test func onAGridAccuracyIsAtLeastTheGridSizeInWholeSteps() {
        let filter = PrivacyFilter(grid: PrivacyGrid(sizeMeters: 100)!)
        #expect(filter.shared(position(48.1, 11.5, accuracy: 2.5)).horizontalAccuracyMeters == 100)
        #expect(filter.shared(position(48.1, 11.5, accuracy: nil)).horizontalAccuracyMeters == 100)
        #expect(filter.shared(position(48.1, 11.5, accuracy: 100)).horizontalAccuracyMeters == 100)
        #expect(filter.shared(position(48.1, 11.5, accuracy: 150)).horizontalAccuracyMeters == 200)
    }

    @Test func aBlurredFixSharesNoAltitudeSpeedOrCourseButKeepsItsTime() {
        let zone = PrivacyZone(latitude: 48.1, longitude: 11.5, radiusMeters: 200)!
        for filter in [PrivacyFilter(grid: PrivacyGrid(sizeMeters: 50)!), PrivacyFilter(zones: [zone])] {
            let shared = filter.shared(position(48.1, 11.5, at: 42))
            #expect(shared.altitudeMSLMeters == nil && shared.altitudeHAEMeters == nil)
            #expect(shared.speedMetersPerSecond == nil && shared.courseDegreesTrue == nil)
            #expect(shared.hdop == nil && shared.satellitesUsed == nil)
            #expect(shared.time == start + .seconds(42))
        }
        // Zones only, outside every zone: the fix as it is.
        let outside = position(48.2, 11.5)
        #expect(PrivacyFilter(zones: [zone]).shared(outside) == outside)
    }

    @Test func insideAZoneTheCentreIsSharedWithTheRadiusAsAccuracy() {
        let zone = PrivacyZone(latitude: 48.137, longitude: 11.575, radiusMeters: 300)!
        let shared = PrivacyFilter(zones: [zone]).shared(position(48.138, 11.576))
        #expect(shared.latitude == 48.137 && shared.longitude == 11.575)
        #expect(shared.horizontalAccuracyMeters == 300)
    }

    @Test func withAGridTooTheZoneCentreIsSnappedAndTheAccuracyCoversTheZone() {
        let zone = PrivacyZone(latitude: 48.137, longitude: 11.575, radiusMeters: 300)!
        let grid = PrivacyGrid(sizeMeters: 1000)!
        let shared = PrivacyFilter(grid: grid, zones: [zone]).shared(position(48.138, 11.576))
        let cell = grid.snap(latitude: 48.137, longitude: 11.575)
        #expect(shared.latitude == cell.latitude && shared.longitude == cell.longitude)
        let offset = distance(position(48.137, 11.575), shared)
        #expect(shared.horizontalAccuracyMeters! >= max(300 + offset, 1000))
    }

    @Test func theFirstZoneListedThatHoldsThePositionWins() {
        let a = PrivacyZone(latitude: 48.137, longitude: 11.575, radiusMeters: 500)!
        let b = PrivacyZone(latitude: 48.138, longitude: 11.576, radiusMeters: 500)!
        let shared = PrivacyFilter(zones: [a, b]).shared(position(48.1375, 11.5755))
        #expect(shared.latitude == a.latitude)
    }

    @Test func zonesParseFromLatLonRadius() {
        #expect(PrivacyZone(argument: "48.137,11.575,300") == PrivacyZone(latitude: 48.137, longitude: 11.575, radiusMeters: 300))
        #expect(PrivacyZone(argument: "-33.9, 151.2 , 50") == PrivacyZone(latitude: -33.9, longitude: 151.2, radiusMeters: 50))
        for bad in ["48.1,11.5", "48.1,11.5,0", "91,0,10", "0,181,10", "a,b,c", "1,2,3,4", "1,2,100001", ""] {
            #expect(PrivacyZone(argument: bad) == nil, "\(bad)")
        }
    }
}

@Suite struct PrivacyShareTests {
    /// A drive north along 11.575° E, one fix a second at 14 m/s, through a zone of 400 m radius.
    static let zone = PrivacyZone(latitude: 48.137, longitude: 11.575, radiusMeters: 400)!

    static func drive(seconds: Int) -> [Fix] {
        (0..<seconds).map { second in
            position(48.120 + Double(second) * 14 / 111_195, 11.575, at: Int64(second + 1))
        }
    }

    @Test func aDriveThroughAZoneNeverSharesAPositionMorePreciseThanTheZone() async {
        let (broadcaster, clock) = makeBroadcaster(privacy: PrivacyFilter(zones: [Self.zone]))
        await broadcaster.start(.fifteenMinutes)
        let fixes = Self.drive(seconds: 240)
        for fix in fixes { await deliver(fix, to: broadcaster, clock: clock) }
        let updates = await drain(broadcaster).compactMap(\.location)
        #expect(updates.count == fixes.count)
        var inside = 0
        for (truth, shared) in zip(fixes, updates) {
            let sharedFix = position(shared.latitude, shared.longitude)
            if Self.zone.contains(latitude: truth.latitude, longitude: truth.longitude) {
                inside += 1
                #expect(shared.latitude == Self.zone.latitude && shared.longitude == Self.zone.longitude)
                #expect(shared.accuracyMeters! >= Self.zone.radiusMeters)
                #expect(shared.speedMetersPerSecond == nil && shared.courseDegreesTrue == nil && shared.altitudeMeters == nil)
            } else {
                // Outside: never a position inside the zone other than its centre.
                #expect(!Self.zone.contains(latitude: shared.latitude, longitude: shared.longitude))
                #expect(distance(truth, sharedFix) == 0)
            }
        }
        #expect(inside >= 50, "the drive spends \(inside) s in the zone")
    }

    @Test func aShareThatEndsInsideAZoneHasAFinalUpdateThatSaysOnlyTheZone() async {
        let (broadcaster, clock) = makeBroadcaster(privacy: PrivacyFilter(grid: PrivacyGrid(sizeMeters: 100)!, zones: [Self.zone]))
        await broadcaster.start(.fifteenMinutes)
        for fix in Self.drive(seconds: 130) { await deliver(fix, to: broadcaster, clock: clock) }
        #expect(Self.zone.contains(latitude: Self.drive(seconds: 130).last!.latitude, longitude: 11.575))
        await broadcaster.stop()
        let events = await drain(broadcaster)
        let final = events[events.count - 2].location!
        #expect(!final.isActive)
        let cell = PrivacyGrid(sizeMeters: 100)!.snap(latitude: Self.zone.latitude, longitude: Self.zone.longitude)
        #expect(final.latitude == cell.latitude && final.longitude == cell.longitude)
        #expect(final.accuracyMeters! >= Self.zone.radiusMeters)
        #expect(final.speedMetersPerSecond == nil)
    }

    @Test func everySharedPositionOfADriveIsWithinTheGridBound() async {
        let grid = PrivacyGrid(sizeMeters: 250)!
        let (broadcaster, clock) = makeBroadcaster(privacy: PrivacyFilter(grid: grid))
        await broadcaster.start(.fifteenMinutes)
        let fixes = Self.drive(seconds: 300)
        for fix in fixes { await deliver(fix, to: broadcaster, clock: clock) }
        let updates = await drain(broadcaster).compactMap(\.location)
        #expect(updates.count == fixes.count)
        for (truth, shared) in zip(fixes, updates) {
            #expect(distance(truth, position(shared.latitude, shared.longitude)) <= grid.maximumErrorMeters + 1e-6)
            #expect(shared.accuracyMeters! >= 250)
        }
        // The shared position moves in steps: far fewer distinct positions than fixes.
        let distinct = Set(updates.map { "\($0.latitude),\($0.longitude)" }).count
        #expect(distinct <= 4200 / 250 + 2)
    }

    @Test func theDistanceThrottleComparesSharedPositionsSoUpdatesComeOnlyWhenTheSharedPositionMoves() async {
        // 14 m/s with a 10 m throttle: every fix would pass on true positions; on a 1 km grid only a
        // change of cell is a move.
        let grid = PrivacyGrid(sizeMeters: 1000)!
        let (broadcaster, clock) = makeBroadcaster(throttle: Throttle(minDistanceMeters: 10), privacy: PrivacyFilter(grid: grid))
        await broadcaster.start(.fifteenMinutes)
        let fixes = Self.drive(seconds: 600)
        for fix in fixes { await deliver(fix, to: broadcaster, clock: clock) }
        let updates = await drain(broadcaster).compactMap(\.location)
        let cells = Set(fixes.map { fix in "\(grid.snap(latitude: fix.latitude, longitude: fix.longitude))" })
        #expect(updates.count == cells.count)
        for (previous, next) in zip(updates, updates.dropFirst()) {
            #expect(previous.latitude != next.latitude || previous.longitude != next.longitude)
        }
    }

    @Test func theDistanceThrottleDropsEveryFixInsideAZoneAfterTheFirst() async {
        let (broadcaster, clock) = makeBroadcaster(throttle: Throttle(minDistanceMeters: 5), privacy: PrivacyFilter(zones: [Self.zone]))
        await broadcaster.start(.fifteenMinutes)
        let fixes = Self.drive(seconds: 240)
        for fix in fixes { await deliver(fix, to: broadcaster, clock: clock) }
        let updates = await drain(broadcaster).compactMap(\.location)
        let atCentre = updates.filter { $0.latitude == Self.zone.latitude && $0.longitude == Self.zone.longitude }
        #expect(atCentre.count == 1)
        #expect(updates.count == fixes.filter { !Self.zone.contains(latitude: $0.latitude, longitude: $0.longitude) }.count + 1)
    }

    @Test func theIntervalThrottleStillAppliesOnSharedPositions() async {
        let (broadcaster, clock) = makeBroadcaster(throttle: Throttle(minInterval: .seconds(10)),
                                                   privacy: PrivacyFilter(grid: PrivacyGrid(sizeMeters: 100)!))
        await broadcaster.start(.fifteenMinutes)
        for fix in Self.drive(seconds: 100) { await deliver(fix, to: broadcaster, clock: clock) }
        #expect(await drain(broadcaster).compactMap(\.location).count == 10)
    }

    @Test func theShareThatEndedLastIsKnownUntilTheNextStarts() async {
        let (broadcaster, clock) = makeBroadcaster()
        #expect(await broadcaster.lastEndedShare == nil)
        let (share, _) = await broadcaster.start(.fifteenMinutes)
        clock.advance(by: .seconds(30))
        await broadcaster.stop()
        #expect(await broadcaster.lastEndedShare == EndedShare(id: share.id, startedAt: start, endedAt: start + .seconds(30), reason: .stopped))
        await broadcaster.start(.oneHour)
        #expect(await broadcaster.lastEndedShare == nil)
        _ = await drain(broadcaster)
    }
}
