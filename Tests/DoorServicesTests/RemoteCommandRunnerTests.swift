import Crypto
import DoorController
import DoorServices
import Foundation
import KeypadHAL
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import Logging
import Synchronization
import Testing

/// Keeps the remote-command events a bus delivers.
final class RemoteCommandRecorder: TerminalEventSink {
    struct Seen: Equatable {
        let command: Int64
        let result: String
        let reason: String?
        let seconds: Int?
    }

    private let seen = Mutex<[Seen]>([])
    var events: [Seen] { seen.withLock { $0 } }

    func handle(_ event: TerminalEvent) async {
        if case .remoteCommand(let command, _, let seconds, let result, let reason) = event {
            seen.withLock { $0.append(Seen(command: command, result: result, reason: reason, seconds: seconds)) }
        }
    }
}

/// The door's side of remote unlock: only a command signed by a trusted replica key, naming
/// this door and this request's nonce, numbered above the last one taken, moves the relay;
/// lockdown wins; each number is taken once, across restarts too.
@Suite("Remote commands at the door")
struct RemoteCommandRunnerTests {
    let logger = Logger(label: "test")
    let siteKey = Curve25519.Signing.PrivateKey()

    struct Door {
        let runner: RemoteCommandRunner
        let output: RecordingOutput
        let relay: DoorRelay
        let modes: DoorModeController
        let recorder: RemoteCommandRecorder
        let time: ManualClock
        let directory: String
    }

    func door(directory: String? = nil) throws -> Door {
        let directory = directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("remote-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let output = RecordingOutput()
        let time = ManualClock()
        let relay = try DoorRelay(output: output, defaultUnlock: .seconds(5), maxUnlock: .seconds(20), logger: logger, clock: TerminalClock(time))
        let bus = TerminalEventBus()
        let recorder = RemoteCommandRecorder()
        bus.start(sinks: [recorder])
        let modes = DoorModeController(relay: relay, bus: bus, logger: logger)
        let runner = RemoteCommandRunner(
            terminalID: "front-door", trust: ReplicaTrust(current: ReplicaPublicKey(siteKey.publicKey)), directory: directory, relay: relay,
            modes: modes, bus: bus, logger: logger)
        return Door(runner: runner, output: output, relay: relay, modes: modes, recorder: recorder, time: time, directory: directory)
    }

    func command(
        _ id: Int64, _ action: DoorCommand.Action = .unlock, seconds: Int? = nil, door: String = "front-door", nonce: String,
        key: Curve25519.Signing.PrivateKey? = nil
    ) throws -> SignedDoorCommand {
        try SignedDoorCommand(
            signing: DoorCommand(terminalID: door, id: id, action: action, seconds: seconds, nonce: nonce, issuedAt: Date()), with: key ?? siteKey)
    }

    @Test func aSignedFreshCommandOpensTheDoorForItsTimeAndIsTakenOnce() async throws {
        let door = try door()
        let nonce = DoorCommand.makeNonce()
        await door.runner.take([try command(4, seconds: 8, nonce: nonce)], nonce: nonce)
        #expect(door.output.isOn && door.relay.isEnergised)
        #expect(await door.runner.lastTaken() == 4)
        #expect(await eventually { door.recorder.events == [.init(command: 4, result: "unlocked", reason: nil, seconds: 8)] })
        door.time.advance(by: .seconds(8))
        #expect(await eventually { !door.output.isOn })
        // The site sends it again (it had not heard the door took it): nothing moves, nothing is journaled twice.
        let again = DoorCommand.makeNonce()
        await door.runner.take([try command(4, seconds: 8, nonce: again)], nonce: again)
        #expect(!door.output.isOn && door.output.changes.filter(\.on).count == 1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(door.recorder.events.count == 1)
        // A new door runner (a restart) remembers the number from state_dir.
        let restarted = try self.door(directory: door.directory)
        #expect(await restarted.runner.lastTaken() == 4)
        await restarted.runner.take([try command(4, nonce: again)], nonce: again)
        #expect(!restarted.output.everOn)
    }

    @Test func anUnlockLongerThanTheDoorsMaximumIsCutToItAndALockEndsIt() async throws {
        let door = try door()
        let nonce = DoorCommand.makeNonce()
        await door.runner.take([try command(9, seconds: 300, nonce: nonce)], nonce: nonce)
        #expect(await eventually { door.recorder.events.first?.seconds == 20 })
        #expect(door.output.isOn)
        let next = DoorCommand.makeNonce()
        await door.runner.take([try command(10, .lock, nonce: next)], nonce: next)
        #expect(!door.output.isOn && !door.relay.isEnergised)
        #expect(await eventually { door.recorder.events.map(\.result) == ["unlocked", "locked"] })
    }

    @Test func aForgedReplayedOrMisdirectedCommandMovesNothing() async throws {
        let door = try door()
        let nonce = DoorCommand.makeNonce()
        var tampered = try command(1, nonce: nonce).payload
        tampered[tampered.firstIndex(of: UInt8(ascii: "1"))!] = UInt8(ascii: "2")
        let forged = SignedDoorCommand(payload: tampered, signature: try command(1, nonce: nonce).signature)
        let foreignKey = try command(2, nonce: nonce, key: Curve25519.Signing.PrivateKey())
        let otherDoor = try command(3, door: "back-door", nonce: nonce)
        // Signed for an earlier request: recorded off the wire and sent again.
        let replayed = try command(5, nonce: DoorCommand.makeNonce())
        await door.runner.take([forged, foreignKey, otherDoor, replayed], nonce: nonce)
        #expect(!door.output.everOn)
        #expect(await door.runner.lastTaken() == 0)
        #expect(await eventually { door.recorder.events.count == 4 })
        #expect(door.recorder.events.map(\.reason) == ["bad_signature", "bad_signature", "other_door", "stale"])
        #expect(door.recorder.events.map(\.result) == ["refused", "refused", "refused", "refused"])
        // A replica message signed by the site is no command, and a command is no replica.
        let confirmation = try SignedReplica(
            signing: .confirmation(terminalID: "front-door", version: 7, issuedAt: Date()), with: siteKey)
        await door.runner.take([SignedDoorCommand(payload: confirmation.payload, signature: confirmation.signature)], nonce: nonce)
        #expect(!door.output.everOn)
        #expect(throws: ReplicaError.self) { try ReplicaMessage(decoding: try command(6, nonce: nonce).payload) }
    }

    @Test func lockdownWinsAndALockCannotEndARelease() async throws {
        let door = try door()
        await door.modes.follow(site: DoorModes.Setting(mode: .lockdown, setBy: "ana", setAt: Date()), unlock: nil)
        let nonce = DoorCommand.makeNonce()
        await door.runner.take([try command(1, seconds: 5, nonce: nonce)], nonce: nonce)
        #expect(!door.output.everOn)
        // Taken (not sent again), refused.
        #expect(await door.runner.lastTaken() == 1)
        #expect(await eventually { door.recorder.events == [.init(command: 1, result: "refused", reason: "lockdown", seconds: nil)] })
        await door.modes.follow(site: DoorModes.Setting(mode: .release, setBy: "ana", setAt: Date()), unlock: nil)
        #expect(door.output.isOn)
        let next = DoorCommand.makeNonce()
        await door.runner.take([try command(2, .lock, nonce: next)], nonce: next)
        #expect(door.output.isOn, "the site's release holds the door: a remote lock does not end it")
        #expect(await eventually { door.recorder.events.last?.reason == "released" })
    }
}

extension RemoteCommandRunnerTests {
    func retirement(door: String = "front-door", nonce: String, key: Curve25519.Signing.PrivateKey? = nil) throws -> SignedDoorCommand {
        try SignedDoorCommand(signing: DoorRetirement(terminalID: door, nonce: nonce, issuedAt: Date()), with: key ?? siteKey)
    }

    /// The site's word that the door is retired counts only signed for this door and this
    /// request; a command is no retirement, and a retirement is no command.
    @Test func aRetirementCountsOnlySignedForThisDoorAndThisRequest() async throws {
        let door = try door()
        let nonce = DoorCommand.makeNonce()
        #expect(await !door.runner.retired(try retirement(nonce: DoorCommand.makeNonce()), nonce: nonce))
        #expect(await !door.runner.retired(try retirement(door: "back-door", nonce: nonce), nonce: nonce))
        #expect(await !door.runner.retired(try retirement(nonce: nonce, key: Curve25519.Signing.PrivateKey()), nonce: nonce))
        #expect(await !door.runner.retired(try command(1, nonce: nonce), nonce: nonce))
        await door.runner.take([try retirement(nonce: nonce)], nonce: nonce)
        #expect(!door.output.everOn)
        #expect(await door.runner.retired(try retirement(nonce: nonce), nonce: nonce))
        #expect(
            await eventually {
                door.recorder.events.map(\.result) == ["refused", "refused", "refused", "refused", "refused", "retired"]
            })
        #expect(door.recorder.events.prefix(4).map(\.reason) == ["stale", "other_door", "bad_signature", "bad_signature"])
    }
}
