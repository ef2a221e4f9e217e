import DoorAssembly
import DoorConfig
import DoorOSDP
import Foundation
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import KioskPadThreads
import Synchronization

/// `kioskpad osdp keyset`: gives a reader in install mode its own Secure Channel key. The
/// door opens a session with the specification's default key (SCBK-D), which only a reader in
/// install mode accepts, sends the new key through that Secure Channel (osdp_KEYSET), then
/// opens a session with the new key to prove the reader took it. Never silent: only this
/// command sends a key, and it says what it did.
public enum OSDPKeySetup {
    /// What happened, for the command to print (never the key).
    public enum Step: Sendable, Equatable {
        case installSession
        case keySent
        case confirmed
    }

    /// `kioskpad osdp keyset`: checks the config and address, makes the key (`generate`: a new
    /// random one written to `keyFile`, mode 600, never over an existing file) or reads it, and
    /// sends it; `print` gets each step (never the key).
    public static func run(
        configuration: KioskPadConfiguration, address: Int, keyFile: String, generate: Bool, print: @escaping @Sendable (String) -> Void
    ) async throws {
        guard configuration.keypad.driver == .osdp, let osdp = configuration.keypad.osdp else {
            throw KeyedError(key: "keypad.driver", message: "is '\(configuration.keypad.driver.rawValue)'; this command needs driver: osdp")
        }
        guard (0...126).contains(address) else {
            throw KeyedError(key: "--address", message: "\(address) is not an OSDP address; valid: 0...126")
        }
        let key: OSDPKey
        if generate {
            let made = OSDPKey.random()
            // The write and its fsync on the file thread, never on a cooperative thread.
            try await WorkThreads.files.run { try writeNew(made, to: keyFile) }
            key = made
            print("osdp keyset: wrote a new key to \(keyFile) (mode 600)")
        } else {
            key = try OSDPKey(file: keyFile, key: "--key-file")
        }
        print("osdp keyset: reader \(address) on \(osdp.device) at \(osdp.baud) baud; opening a session with the default key (install mode)")
        try await setKey(key, address: UInt8(address), on: osdp) { step in
            switch step {
            case .installSession: print("osdp keyset: Secure Channel open with the default key; sending the new key")
            case .keySent: print("osdp keyset: the reader took the new key; checking a session with it")
            case .confirmed: print("osdp keyset: reader \(address) now uses the key in \(keyFile); set its scbk_file to that file")
            }
        }
    }

    /// Writes `key` to a new file with mode 600 (an existing file is an error: it may be a
    /// reader's key still in use).
    static func writeNew(_ key: OSDPKey, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let reason = errno == EEXIST ? "it exists (a key still in use is never overwritten)" : String(cString: strerror(errno))
            throw KeyedError(key: "--key-file", message: "cannot create \(path): \(reason)", kind: .unavailable(retryable: false))
        }
        defer { close(fd) }
        let text = Array((key.hex + "\n").utf8)
        guard text.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) == text.count, fsync(fd) == 0 else {
            throw KeyedError(key: "--key-file", message: "cannot write \(path): \(String(cString: strerror(errno)))", kind: .unavailable(retryable: true))
        }
    }

    /// Sends `newKey` to the reader at `address` on the line of `osdp`; `progress` gets each
    /// step. Errors name the step that failed and what to check.
    public static func setKey(
        _ newKey: OSDPKey, address: UInt8, on osdp: OSDPKeypadConfiguration, within limit: Duration = .seconds(15),
        progress: @escaping @Sendable (Step) -> Void = { _ in }
    ) async throws {
        let commands = OSDPCommandQueue()
        let install = try await session(osdp, reader: OSDPReaderSetup(address: address, key: nil), installMode: true, commands: commands)
        defer { install.run.stop() }
        switch await install.events.first(within: limit, where: { $0.isOnline || $0.isRefusal }) {
        case .online(secure: true)?:
            progress(.installSession)
        case .refused(let reason)?:
            throw KeyedError(
                key: "--address", message: "reader \(address) refused the default key (\(reason)): it is not in install mode",
                fix: "put the reader in install mode as its manual says (or reset it to factory settings), then run this again",
                kind: .unavailable(retryable: false))
        default:
            throw KeyedError(
                key: "--address", message: "reader \(address) did not answer on \(osdp.device) within \(limit.wholeSeconds) s",
                fix: "check the address, the wiring (A/B, ground) and keypad.baud; stop kioskpad if it is using the line",
                kind: .unavailable(retryable: true))
        }
        commands.send(.keySet(newKey), to: address)
        guard case .keySetAccepted? = await install.events.first(within: limit, where: { $0 == .keySetAccepted || $0.isNak }) else {
            throw KeyedError(key: "--address", message: "reader \(address) did not take the new key", kind: .unavailable(retryable: true))
        }
        progress(.keySent)
        install.run.stop()
        try await Task.sleep(for: .milliseconds(300))
        let check = try await session(osdp, reader: OSDPReaderSetup(address: address, key: newKey), installMode: false, commands: OSDPCommandQueue())
        defer { check.run.stop() }
        guard case .online(secure: true)? = await check.events.first(within: limit, where: { $0.isOnline || $0.isRefusal }) else {
            throw KeyedError(
                key: "--address", message: "reader \(address) took the key but did not open a session with it",
                fix: "run this again with the reader in install mode", kind: .unavailable(retryable: true))
        }
        progress(.confirmed)
    }

    private static func session(
        _ osdp: OSDPKeypadConfiguration, reader: OSDPReaderSetup, installMode: Bool, commands: OSDPCommandQueue
    ) async throws -> (run: KeySourceRun, events: OSDPEventWaiter) {
        let waiter = OSDPEventWaiter()
        let source = try OSDPKeySource(
            device: osdp.device, baud: osdp.baud, readers: [reader], pollInterval: osdp.pollInterval, offlineAfter: osdp.offlineAfter,
            installMode: installMode, commands: commands, report: { _, event in waiter.note(event) })
        return (source.start(deliver: { _ in }, finished: { _ in waiter.note(.offline) }), waiter)
    }
}

extension OSDPReaderEvent {
    var isOnline: Bool { if case .online = self { true } else { false } }
    var isRefusal: Bool { if case .refused = self { true } else { false } }
    var isNak: Bool { if case .nak = self { true } else { false } }
}

/// A reader's events kept for a command that waits for one.
final class OSDPEventWaiter: Sendable {
    private let events = Mutex<[OSDPReaderEvent]>([])

    func note(_ event: OSDPReaderEvent) { events.withLock { $0.append(event) } }

    /// The first event (from the start) that `matches`, waiting up to `limit`; nil if none came.
    func first(within limit: Duration, where matches: (OSDPReaderEvent) -> Bool) async -> OSDPReaderEvent? {
        let clock = ContinuousClock()
        let deadline = clock.now + limit
        while clock.now < deadline {
            if let found = events.withLock({ $0.first(where: matches) }) { return found }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return events.withLock { $0.first(where: matches) }
    }
}
