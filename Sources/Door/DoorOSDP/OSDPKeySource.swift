import Foundation
import KeypadHAL
import KioskPadCore
import Synchronization

/// One reader on the line: its address and, for the Secure Channel, its key.
public struct OSDPReaderSetup: Sendable {
    public let address: UInt8
    public let key: OSDPKey?

    public init(address: UInt8, key: OSDPKey?) {
        self.address = address
        self.key = key
    }
}

/// OSDP readers as the key source: keys typed at any online reader go into the entry as
/// labels (`0`-`9`, `*`, `#`), cards into the card path the Wiegand source uses. The line is
/// opened at once (errors name `keypad.device`); each ``start`` runs a bus on its own thread.
/// A reader that is not online, or configured as secure but not in the Secure Channel,
/// contributes nothing.
public final class OSDPKeySource: KeySource, @unchecked Sendable {
    // @unchecked: the port is handed to one bus at a time (start is called once per open by
    // RetryingKeySource); everything else is immutable.
    public static let threadName = "kp-osdp"
    public var isScripted: Bool { false }
    public let device: String
    private let port: OSDPSerialPort
    private let readers: [OSDPReaderSetup]
    private let pollInterval: Duration
    private let offlineAfter: Duration
    private let installMode: Bool
    private let commands: OSDPCommandQueue
    private let report: @Sendable (UInt8, OSDPReaderEvent) -> Void
    /// Each poll cycle's length, from its first message to its last reply (benchmarks).
    public let cycleObserver: (@Sendable (Duration) -> Void)?

    public init(
        device: String, baud: Int, readers: [OSDPReaderSetup], pollInterval: Duration = .milliseconds(50), offlineAfter: Duration = .seconds(8),
        installMode: Bool = false, commands: OSDPCommandQueue, report: @escaping @Sendable (UInt8, OSDPReaderEvent) -> Void = { _, _ in },
        cycleObserver: (@Sendable (Duration) -> Void)? = nil
    ) throws {
        self.cycleObserver = cycleObserver
        self.device = device
        self.port = try OSDPSerialPort(path: device, baud: baud)
        self.readers = readers
        self.pollInterval = pollInterval
        self.offlineAfter = offlineAfter
        self.installMode = installMode
        self.commands = commands
        self.report = report
    }

    public func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        let links = readers.map { OSDPReaderLink(address: $0.address, key: $0.key, installMode: installMode, offlineAfter: offlineAfter) }
        let bus = OSDPBus(
            port: port, links: links, pollInterval: pollInterval, replyTimeout: .milliseconds(200), commands: commands, cycleObserver: cycleObserver)
        let report = self.report
        let thread = Thread {
            Self.nameThisThread()
            do {
                try bus.run { address, event in
                    switch event {
                    case .keys(let bytes):
                        for label in bytes.compactMap(OSDPKeySource.label) { deliver(.key(.label(label))) }
                    case .card(let card):
                        switch OSDPKeySource.digits(of: card) {
                        case .success(let digits): deliver(.card(digits))
                        case .failure(let reason): report(address, .dropped(reason: reason.rawValue))
                        }
                    default:
                        break
                    }
                    report(address, event)
                }
            } catch {
                if !bus.stopped.load(ordering: .sequentiallyConsistent) { finished(error) }
            }
        }
        thread.name = Self.threadName
        thread.start()
        return KeySourceRun(
            stop: { bus.stop() },
            probe: { limit in
                let before = bus.rounds.load(ordering: .sequentiallyConsistent)
                let clock = ContinuousClock()
                let deadline = clock.now + limit
                while clock.now < deadline {
                    if bus.rounds.load(ordering: .sequentiallyConsistent) > before { return true }
                    try? await Task.sleep(for: .milliseconds(10))
                }
                return false
            })
    }

    /// Names the calling thread `kp-osdp` for the kernel (`top -H`, `/proc`), through
    /// /proc/thread-self/comm (Glibc's pthread_setname_np is not visible to Swift).
    static func nameThisThread() {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = threadName.withCString { write(fd, $0, strlen($0)) }
        close(fd)
    }

    /// The label of an osdp_KEYPAD byte: ASCII digits and `A`-`D`, `*` (0x7F or `*`), `#`
    /// (0x0D or `#`); nil for anything else.
    public static func label(_ byte: UInt8) -> Character? {
        switch byte {
        case 0x30...0x39, 0x41...0x44: return Character(UnicodeScalar(byte))
        case 0x7F, 0x2A: return "*"
        case 0x0D, 0x23: return "#"
        default: return nil
        }
    }

    /// Why a card was not presented.
    public enum CardRejection: String, Error, Sendable {
        /// A 26- or 34-bit Wiegand card whose parity is wrong.
        case parity = "card_parity"
        /// More than 64 bits, or formatted data that is not digits.
        case format = "card_format"
    }

    /// A card's number as decimal digits: a 26- or 34-bit card as a Wiegand reader gives it
    /// (parity checked, the same number as `driver: wiegand` with `long_frames: card`); other
    /// raw cards up to 64 bits as the number their bits make, zero-padded to the digits the
    /// largest such number has; osdp_FMT's characters when they are digits.
    public static func digits(of card: OSDPCard) -> Result<SecretDigits, CardRejection> {
        guard card.rawFormat != nil else {
            guard card.data.allSatisfy({ (0x30...0x39).contains($0) }), let digits = SecretDigits(asciiBytes: card.data) else {
                return .failure(.format)
            }
            return .success(digits)
        }
        let bits = (0..<card.bits).map { (index: Int) -> Bool in
            let byte: UInt8 = card.data[index / 8]
            let shift = UInt8(7 - index % 8)
            return (byte >> shift) & 1 == 1
        }
        if card.bits == 26 || card.bits == 34 {
            guard case .success(.number(let count, let data)) = WiegandFrame.decode(bits) else { return .failure(.parity) }
            return .success(WiegandKeySource.card(data, bits: count))
        }
        guard card.bits <= 64 else { return .failure(.format) }
        let value = bits.reduce(UInt64(0)) { $0 << 1 | ($1 ? 1 : 0) }
        let width = String(card.bits == 64 ? UInt64.max : (UInt64(1) << UInt64(card.bits)) - 1).count
        return .success(SecretDigits.zeroPadded(value, width: width))
    }
}
