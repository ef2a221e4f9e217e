import DoorController
import DoorOSDP
import DoorServices
import Foundation
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Logging

extension KeypadAssembly {
    /// The readers of `driver: osdp` with their keys read from their `scbk_file`s. A key file
    /// must hold 32 hex digits and be readable by its owner only (like an SSH key); errors name
    /// `keypad.readers[N].scbk_file` and never show the file's contents.
    public static func osdpReaders(_ osdp: OSDPKeypadConfiguration) throws -> [OSDPReaderSetup] {
        try osdp.readers.enumerated().map { index, reader in
            guard let path = reader.scbkFile else { return OSDPReaderSetup(address: UInt8(reader.address), key: nil) }
            return OSDPReaderSetup(address: UInt8(reader.address), key: try osdpKey(path, key: "keypad.readers[\(index)].scbk_file"))
        }
    }

    /// `config check --with-files`: reads every OSDP reader's key file as `run` does at start.
    public static func checkOSDPKeyFiles(_ keypad: KeypadConfiguration) throws {
        if keypad.driver == .osdp, let osdp = keypad.osdp { _ = try osdpReaders(osdp) }
    }

    /// The key in the file at `path`; errors name `key`.
    public static func osdpKey(_ path: String, key: String) throws -> OSDPKey {
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: path)
        } catch {
            throw KeyedError(key: key, message: "cannot read \(path): no such file", kind: .unavailable(retryable: false))
        }
        if let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw KeyedError(
                key: key, message: "\(path) can be read by others (mode \(String(mode, radix: 8)))",
                fix: "chmod 600 \(path), owned by the service user")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw KeyedError(key: key, message: "cannot read \(path): permission denied", kind: .unavailable(retryable: false))
        }
        guard let text = String(data: data, encoding: .utf8), let parsed = OSDPKey(hex: text) else {
            throw KeyedError(key: key, message: "\(path) must hold the reader's Secure Channel key as 32 hex digits")
        }
        return parsed
    }

    /// OSDP readers on a serial line as the terminal's key source (`driver: osdp`), reopened
    /// with back-off like the other keypads when the line fails (a USB adapter unplugged).
    /// Readers' supervision is published on `bus` and logged; keys and cards never are.
    public static func retryingOSDPSource(
        _ osdp: OSDPKeypadConfiguration, commands: OSDPCommandQueue, bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        let readers = try osdpReaders(osdp)
        let report = osdpReport(bus: bus, logger: logger)
        let open: @Sendable () throws -> OSDPKeySource = {
            try OSDPKeySource(
                device: osdp.device, baud: osdp.baud, readers: readers, pollInterval: osdp.pollInterval, offlineAfter: osdp.offlineAfter,
                commands: commands, report: report)
        }
        return try retrying(
            open, bus: bus, logger: logger,
            ready: [
                "device": "\(osdp.device)", "baud": "\(osdp.baud)",
                "readers": "\(readers.map { "\($0.address)\($0.key == nil ? " (clear)" : " (secure)")" }.joined(separator: ", "))",
            ])
    }

    /// Turns a reader's reports into terminal events and log lines.
    static func osdpReport(bus: TerminalEventBus, logger: Logger) -> @Sendable (UInt8, OSDPReaderEvent) -> Void {
        let limiter = LockedReportLimiter(interval: .seconds(10))
        return { address, event in
            let reader = Int(address)
            var report: ReaderReport?
            switch event {
            case .online(let secure):
                logger.notice("reader online", metadata: ["reader": "\(reader)", "secure": "\(secure)"])
                report = .online(secure: secure)
            case .offline:
                logger.error("reader offline", metadata: ["reader": "\(reader)"])
                report = .offline
            case .tamper(let active):
                logger.warning(active ? "reader tamper" : "reader tamper cleared", metadata: ["reader": "\(reader)"])
                report = .tamper(active: active)
            case .power(let ok):
                logger.warning(ok ? "reader power restored" : "reader power failed", metadata: ["reader": "\(reader)"])
                report = .power(ok: ok)
            case .refused(let reason):
                logger.error("reader refused", metadata: ["reader": "\(reader)", "reason": "\(reason)"])
                report = .refused(reason: reason)
            case .dropped(let reason):
                bus.publish(.readerMessageDropped(reason: reason))
                if let count = limiter.note() {
                    logger.warning("reader message dropped", metadata: ["reader": "\(reader)", "reason": "\(reason)", "dropped_since_last_report": "\(count)"])
                }
            case .nak(let code):
                logger.warning("reader refused a command", metadata: ["reader": "\(reader)", "nak": "\(code)"])
            case .keys, .card, .keySetAccepted:
                break
            }
            if let report { bus.publish(.reader(address: reader, report: report)) }
        }
    }
}
