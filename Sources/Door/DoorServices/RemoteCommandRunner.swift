import DoorController
import DoorOfflineReplica
import Foundation
import KioskPadAccess
import KioskPadStorage
import KioskPadThreads
import Logging

/// Acts on the site's remote commands (the desk's unlock and lock) from the push channel,
/// only when each is signed by a replica key the door trusts, names this door and the nonce
/// of the request it answered (so it is fresh and never replayed), and is numbered above the
/// last one taken. The number is written to `remote-command-last` in `state_dir` (fsync, on
/// the file thread) before the relay moves: a crash never opens the door twice for one
/// command. Lockdown wins: an unlock is refused while the door is in lockdown, and a lock
/// cannot end a release. Every command read is journaled (`remote_command`), acted on or not;
/// so is the site's word that the door is retired (``retired(_:nonce:)``, action `retire`).
public actor RemoteCommandRunner: RemoteCommandTaker {
    private let terminalID: String
    private let trust: ReplicaTrust
    private let path: String
    private let relay: DoorRelay?
    private let modes: DoorModeController
    private let bus: TerminalEventBus
    private let logger: Logger
    private var last: Int64

    /// `directory`: the door's `state_dir`, where the last number taken is kept.
    public init(
        terminalID: String, trust: ReplicaTrust, directory: String, relay: DoorRelay?, modes: DoorModeController, bus: TerminalEventBus,
        logger: Logger
    ) {
        self.terminalID = terminalID
        self.trust = trust
        path = directory + "/" + Self.fileName
        self.relay = relay
        self.modes = modes
        self.bus = bus
        self.logger = logger
        last = Self.read(path)
    }

    /// The file in `state_dir` that keeps the last command's number.
    public static let fileName = "remote-command-last"

    public func lastTaken() -> Int64 { last }

    public func take(_ commands: [SignedDoorCommand], nonce: String) async {
        var opened: [DoorCommand] = []
        for signed in commands {
            switch check(signed, nonce: nonce) {
            case .success(let command): opened.append(command)
            case .failure(let refusal):
                logger.warning("remote command refused", metadata: ["reason": "\(refusal.reason)", "command": "\(refusal.command)"])
                bus.publish(.remoteCommand(command: refusal.command, action: refusal.action, seconds: nil, result: "refused", reason: refusal.reason))
            }
        }
        for command in opened.sorted(by: { $0.id < $1.id }) where command.id > last {
            do {
                try await remember(command.id)
            } catch {
                // Not remembered, not done: the site sends it again while it lives.
                logger.error("remote command not taken: its number could not be kept", metadata: ["path": "\(path)", "error": "\(error)"])
                return
            }
            await act(on: command)
        }
    }

    public func retired(_ statement: SignedDoorCommand, nonce: String) -> Bool {
        let reason: String
        do {
            let retirement = try statement.openRetirement(with: trust)
            if retirement.terminalID != terminalID {
                reason = "other_door"
            } else if !Self.sameNonce(retirement.nonce, nonce) {
                reason = "stale"
            } else {
                bus.publish(.remoteCommand(command: 0, action: Self.retireAction, seconds: nil, result: "retired", reason: nil))
                return true
            }
        } catch {
            reason = "bad_signature"
        }
        logger.warning("retirement refused", metadata: ["reason": "\(reason)"])
        bus.publish(.remoteCommand(command: 0, action: Self.retireAction, seconds: nil, result: "refused", reason: reason))
        return false
    }

    /// The `action` a retirement is journaled with (command number 0: it has none).
    public static let retireAction = "retire"

    /// Why a command was not taken: its number and action when it could be read.
    struct Refusal: Error {
        let command: Int64
        let action: String
        let reason: String
    }

    /// The command, if it is the site's, for this door and this request.
    func check(_ signed: SignedDoorCommand, nonce: String) -> Result<DoorCommand, Refusal> {
        let command: DoorCommand
        do {
            command = try signed.open(with: trust)
        } catch {
            return .failure(Refusal(command: 0, action: "unknown", reason: "bad_signature"))
        }
        guard command.terminalID == terminalID else {
            return .failure(Refusal(command: command.id, action: command.action.rawValue, reason: "other_door"))
        }
        guard Self.sameNonce(command.nonce, nonce) else {
            return .failure(Refusal(command: command.id, action: command.action.rawValue, reason: "stale"))
        }
        return .success(command)
    }

    private func act(on command: DoorCommand) async {
        let mode = await modes.mode.mode
        let action = command.action.rawValue
        func refuse(_ reason: String) {
            logger.notice("remote command refused", metadata: ["command": "\(command.id)", "action": "\(action)", "reason": "\(reason)"])
            bus.publish(.remoteCommand(command: command.id, action: action, seconds: nil, result: "refused", reason: reason))
        }
        guard let relay else { return refuse("no_relay") }
        switch command.action {
        case .unlock:
            if mode == .lockdown { return refuse("lockdown") }
            if mode == .release { return refuse("released") }
            let wanted = command.seconds.map { Duration.seconds($0) } ?? relay.defaultUnlock
            let given = min(wanted, relay.maxUnlock)
            logger.notice("remote unlock", metadata: ["command": "\(command.id)", "seconds": "\(given.wholeSeconds)"])
            bus.publish(.remoteCommand(command: command.id, action: action, seconds: Int(given.wholeSeconds), result: "unlocked", reason: nil))
            await relay.unlock(for: given)
        case .lock:
            if mode == .release { return refuse("released") }
            logger.notice("remote lock", metadata: ["command": "\(command.id)"])
            bus.publish(.remoteCommand(command: command.id, action: action, seconds: nil, result: "locked", reason: nil))
            await relay.lock()
        }
    }

    /// Keeps `id` as the last command taken, durably, on the file thread.
    private func remember(_ id: Int64) async throws {
        let path = self.path
        try await WorkThreads.files.run {
            try DurableFile.replace(path: path, contents: Array("\(id)\n".utf8), mode: 0o600)
        }
        last = id
    }

    private static func read(_ path: String) -> Int64 {
        guard let bytes = FileManager.default.contents(atPath: path) else { return 0 }
        return Int64(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// Compares two nonces in time independent of where they differ.
    static func sameNonce(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
