import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Yams

/// `keypad:` with `driver: osdp`: the serial line and its readers.
extension KeypadSection {
    static let osdpKeys = ["baud", "readers", "poll_ms", "offline_s"]
    static let osdpSpeeds = [9600, 19200, 38400, 57600, 115_200, 230_400]

    /// `device` (required), `baud`, `readers` (required: 1...8, each `address` and optional
    /// `scbk_file`), `poll_ms`, `offline_s`.
    static func readOSDP(_ reader: MappingReader, baseDirectory: String) -> OSDPKeypadConfiguration {
        let log = reader.log
        if !reader.has("device") {
            log.report(
                reader.keyPath("device"), "is required with driver: osdp: the serial line, e.g. /dev/ttyUSB0 or /dev/serial/by-id/usb-...", at: reader.node)
        }
        let device = reader.string("device", default: "/dev/ttyUSB0")
        if reader.has("device"), !device.hasPrefix("/") {
            log.report(reader.keyPath("device"), "\(ConfigText.quoted(device)) is not a path (/dev/ttyUSB0, /dev/ttyAMA0, ...)", at: reader.value("device"))
        }
        let baud = reader.int("baud", default: 9600, range: 1...1_000_000)
        if !osdpSpeeds.contains(baud) {
            log.report(
                reader.keyPath("baud"), "\(baud) is not an OSDP speed; valid: \(osdpSpeeds.map(String.init).joined(separator: ", "))", at: reader.value("baud"))
        }
        let path = reader.keyPath("readers")
        var readers: [OSDPReaderConfiguration] = []
        let node = reader.value("readers")
        if case .sequence(let sequence) = node, (1...8).contains(sequence.count) {
            for (index, item) in sequence.enumerated() {
                let entry = MappingReader(item, path: "\(path)[\(index)]", log: log)
                if !entry.has("address") {
                    log.report(entry.keyPath("address"), "is required: the reader's OSDP address, 0...126", at: item)
                }
                let address = entry.int("address", default: 0, range: 0...126)
                if readers.contains(where: { $0.address == address }) {
                    log.report(
                        entry.keyPath("address"), "\(address) is used by another reader; each reader on a line needs its own address",
                        at: entry.value("address"))
                }
                let file = entry.has("scbk_file") ? ConfigValues.resolve(entry.string("scbk_file", default: ""), baseDirectory) : nil
                entry.finish()
                readers.append(OSDPReaderConfiguration(address: address, scbkFile: file))
            }
        } else {
            log.report(
                path, "is required with driver: osdp: a list of 1...8 readers, e.g. [{address: 1, scbk_file: /etc/kioskpad/reader1.scbk}]",
                at: node ?? reader.node)
        }
        return OSDPKeypadConfiguration(
            device: device, baud: baud, readers: readers,
            // Readers drop a secure session after a silence (libosdp's: 800 ms), so polls stay
            // well within it.
            pollInterval: .milliseconds(reader.int("poll_ms", default: 50, range: 20...500)),
            offlineAfter: .seconds(reader.int("offline_s", default: 8, range: 1...60)))
    }
}
