import ArgumentParser
import DoorAssembly
import DoorOSDP
import Foundation
import KioskPadCommandLine
import KioskPadConfig
import KioskPadCore

/// `kioskpad osdp`: tools for OSDP readers.
struct OSDPCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "osdp", abstract: "OSDP readers: give a reader its Secure Channel key.", subcommands: [OSDPKeySetCommand.self])
}

/// `kioskpad osdp keyset`: a reader in install mode gets its own key.
struct OSDPKeySetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keyset",
        abstract: "Give a reader in install mode its own Secure Channel key (osdp_KEYSET through a session with the default key).",
        discussion: """
            Stop kioskpad first: this command uses the line of the config's keypad section (driver: osdp). With --generate, a \
            new random key is written to --key-file (mode 600; an existing file is never overwritten); without it, the key \
            already in --key-file is sent. The key is never printed. Then set keypad.readers[N].scbk_file to that file.
            """)

    @Option(help: "Config file with a keypad section of driver: osdp (its device and baud are used).")
    var config: String

    @Option(help: "The reader's OSDP address (0...126).")
    var address: Int

    @Option(name: .customLong("key-file"), help: "The file of the reader's new key: 32 hex digits, mode 600.")
    var keyFile: String

    @Flag(help: "Make a new random key and write it to --key-file first.")
    var generate = false

    func run() async throws {
        let configuration = try ConfigLoader.load(path: config)
        guard configuration.keypad.driver == .osdp, let osdp = configuration.keypad.osdp else {
            throw KeyedError(key: "keypad.driver", message: "is '\(configuration.keypad.driver.rawValue)'; this command needs driver: osdp")
        }
        guard (0...126).contains(address) else {
            throw KeyedError(key: "--address", message: "\(address) is not an OSDP address; valid: 0...126")
        }
        let key: OSDPKey
        if generate {
            key = OSDPKey.random()
            try Self.writeNew(key, to: keyFile)
            writeLine("osdp keyset: wrote a new key to \(keyFile) (mode 600)")
        } else {
            key = try KeypadAssembly.osdpKey(keyFile, key: "--key-file")
        }
        writeLine("osdp keyset: reader \(address) on \(osdp.device) at \(osdp.baud) baud; opening a session with the default key (install mode)")
        try await OSDPKeySetup.setKey(key, address: UInt8(address), on: osdp) { step in
            switch step {
            case .installSession: writeLine("osdp keyset: Secure Channel open with the default key; sending the new key")
            case .keySent: writeLine("osdp keyset: the reader took the new key; checking a session with it")
            case .confirmed: writeLine("osdp keyset: reader \(address) now uses the key in \(keyFile); set its scbk_file to that file")
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
}
