import Foundation
import KeypadTestSupport
import SiteCore
import Synchronization
import Testing

/// The push channel's one reader of the replica's version: a waiting door is told once the
/// version passes its own, many waiting doors share each read, and nobody waits past their limit.
@Suite("The replica version watch")
struct ReplicaVersionWatchTests {
    /// A version the test moves, counting its reads.
    final class Source: Sendable {
        let state = Mutex((version: Int64(5), reads: 0))
        var reads: Int { state.withLock { $0.reads } }
        func set(_ version: Int64) { state.withLock { $0.version = version } }
        func read() -> Int64 {
            state.withLock { state in
                state.reads += 1
                return state.version
            }
        }
    }

    @Test func aWaitingDoorIsToldOnceTheVersionPassesItsOwn() async throws {
        let source = Source()
        let watch = ReplicaVersionWatch(interval: .milliseconds(20)) { source.read() }
        async let told = watch.change(from: 5, within: .seconds(30))
        #expect(await eventually { watch.waiting == 1 }, "nothing changed yet: the door waits")
        try await Task.sleep(for: .milliseconds(100))
        #expect(watch.waiting == 1, "after several reads of the same version it still waits")
        source.set(7)
        #expect(await told == 7)
        #expect(watch.waiting == 0)
        // A door holding an older version is told at once.
        #expect(await watch.change(from: 6, within: .seconds(30)) == 7)
    }

    @Test func nobodyWaitsPastTheirLimitAndALowerVersionNeverAnswers() async throws {
        let source = Source()
        let watch = ReplicaVersionWatch(interval: .milliseconds(20)) { source.read() }
        #expect(await watch.change(from: 5, within: .milliseconds(200)) == nil)
        // A database restored from a backup: its version is below the door's.
        source.set(3)
        #expect(await watch.change(from: 5, within: .milliseconds(200)) == nil)
        #expect(watch.waiting == 0)
    }

    @Test func manyWaitingDoorsShareEachReadAndTheReadsStopWhenNobodyWaits() async throws {
        let source = Source()
        let watch = ReplicaVersionWatch(interval: .milliseconds(20)) { source.read() }
        let doors = 200
        try await withThrowingTaskGroup(of: Int64?.self) { group in
            for _ in 0..<doors { group.addTask { await watch.change(from: 5, within: .seconds(30)) } }
            try await Task.sleep(for: .milliseconds(300))
            source.set(6)
            var told = 0
            for try await version in group where version == 6 { told += 1 }
            #expect(told == doors)
        }
        let reads = source.reads
        #expect(reads < doors, "\(reads) reads for \(doors) doors: they share them")
        try await Task.sleep(for: .milliseconds(200))
        #expect(source.reads == reads, "no door waits: nothing is read")
    }

    /// An adopted door waiting with the newest settings version it knows is answered with
    /// "check in" once the site's settings version passes it, or at once when a rotation of its
    /// own secret waits; another door's rotation, or the version it knows, wakes nobody.
    @Test func aDoorThatChecksInIsWokenForNewSettingsAndItsOwnRotationOnly() async throws {
        let source = Source()
        let signals = Mutex((settings: Int64(3), rotating: Set<String>()))
        let watch = ReplicaVersionWatch(
            interval: .milliseconds(20), read: { source.read() },
            checkIns: { signals.withLock { ReplicaVersionWatch.CheckInSignals(settingsVersion: $0.settings, rotating: $0.rotating) } })
        // Knows version 3: waits. The version moves to 4: told to check in, the replica version unchanged.
        async let told = watch.wake(from: 5, commandsFor: nil, checkInFor: ("front-door", 3), within: .seconds(30))
        #expect(await eventually { watch.waiting == 1 })
        try await Task.sleep(for: .milliseconds(100))
        #expect(watch.waiting == 1, "the settings it knows: it waits")
        signals.withLock { $0.settings = 4 }
        #expect(await told == ReplicaVersionWatch.Wake(version: 5, checkIn: true))
        // Another door's rotation wakes nobody; its own answers at once.
        signals.withLock { $0.rotating = ["back-door"] }
        #expect(await watch.wake(from: 5, commandsFor: nil, checkInFor: ("front-door", 4), within: .milliseconds(200)) == nil)
        signals.withLock { $0.rotating = ["back-door", "front-door"] }
        #expect(await watch.wake(from: 5, commandsFor: nil, checkInFor: ("front-door", 4), within: .seconds(30)) == .init(version: 5, checkIn: true))
        // A door that does not check in is not told, and a newer replica is a plain wake.
        #expect(await watch.wake(from: 5, commandsFor: nil, checkInFor: nil, within: .milliseconds(200)) == nil)
        source.set(6)
        #expect(await watch.wake(from: 5, commandsFor: nil, checkInFor: nil, within: .seconds(30)) == .init(version: 6, checkIn: false))
        #expect(watch.waiting == 0)
    }
}
