import DoorConfig
import DoorController
import DoorOSDP
import DoorServices
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
            return OSDPReaderSetup(address: UInt8(reader.address), key: try OSDPKey(file: path, key: "keypad.readers[\(index)].scbk_file"))
        }
    }

    /// OSDP readers on a serial line as the terminal's key source (`driver: osdp`), reopened
    /// with back-off like the other keypads when the line fails (a USB adapter unplugged).
    /// Readers' supervision is published on `bus` and logged; keys and cards never are.
    public static func retryingOSDPSource(
        _ osdp: OSDPKeypadConfiguration, commands: OSDPCommandQueue, bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        let readers = try osdpReaders(osdp)
        let report = OSDPReaderReports.publisher(bus: bus, logger: logger)
        let open: @Sendable () throws -> OSDPKeySource = {
            try OSDPKeySource(
                device: osdp.device, baud: osdp.baud, readers: readers, pollInterval: osdp.pollInterval, offlineAfter: osdp.offlineAfter,
                commands: commands, report: report)
        }
        return try RetryingKeySource.opening(
            open, bus: bus, logger: logger,
            ready: [
                "device": "\(osdp.device)", "baud": "\(osdp.baud)",
                "readers": "\(readers.map { "\($0.address)\($0.key == nil ? " (clear)" : " (secure)")" }.joined(separator: ", "))",
            ])
    }
}
