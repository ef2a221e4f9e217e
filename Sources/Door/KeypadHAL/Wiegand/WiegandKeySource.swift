import Foundation
import KioskPadCore
import Synchronization

#if canImport(CKeypadGPIO)
    import CKeypadGPIO
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// What a ``WiegandKeySource`` saw besides keys, for logs, metrics, the journal and keytest.
/// Never carries a PIN's digits.
public enum WiegandReport: Equatable, Sendable {
    /// A frame was dropped: `reason` is a ``WiegandFrame/Rejection`` raw value, or
    /// `pin_length` for a whole-PIN frame with more digits than an entry takes.
    case dropped(reason: String)
    /// A 26/34-bit frame went to the entry as a whole PIN of `digits` digits.
    case wholePIN(bits: Int, digits: Int)
    /// A 26/34-bit frame was presented as a card (`keypad.long_frames: card`) with these data
    /// bits (keytest shows the number, for enrolling the card; nothing else does).
    case card(bits: Int, data: UInt32)
}

/// A Wiegand keypad as the key source: D0 and D1 are GPIO inputs with pull-ups, read on a
/// thread of its own (`kp-wiegand`) asleep in `poll(2)` on their falling-edge events (one
/// kernel event per pulse, so its buffer of 16 per line holds 16 bits). Each falling
/// edge is a bit (D0: 0, D1: 1), dated by the kernel; `frameGap` of silence ends a frame.
/// A 4- or 8-bit frame is one key; a 26- or 34-bit frame is a whole PIN, typed into the entry
/// as its digits and submitted, or with `longFrames` `.card` a card presented (its number as
/// zero-padded decimal digits). Bad frames are dropped and reported, never typed.
public final class WiegandKeySource: KeySource, @unchecked Sendable {
    // @unchecked: the line handle is used only by the reading thread (kp_wake is thread-safe),
    // and closed in deinit, after that thread (which holds the source) has ended.
    public static let threadName = "kp-wiegand"
    public var isScripted: Bool { false }
    public let chip: String
    private let frameGap: Duration
    private let pinDigits: ClosedRange<Int>
    private let longFrames: WiegandLongFrames
    private let report: @Sendable (WiegandReport) -> Void
    #if canImport(CKeypadGPIO)
        private let handle: OpaquePointer
    #endif

    /// Requests D0 and D1 on `chip` as inputs with pull-ups and falling-edge events. Errors name
    /// `keypad.chip`, `keypad.d0` or `keypad.d1`. `pinDigits` is the entry's length range: a
    /// whole-PIN frame's number is padded with leading zeros to its lower bound (Wiegand
    /// carries a number, so `0042` arrives as 42) and dropped above its upper bound.
    public init(
        chip: String, d0: LineReference, d1: LineReference, frameGap: Duration, pinDigits: ClosedRange<Int>,
        longFrames: WiegandLongFrames = .pin, report: @escaping @Sendable (WiegandReport) -> Void = { _ in }
    ) throws {
        self.chip = chip
        self.frameGap = frameGap
        self.pinDigits = pinDigits
        self.longFrames = longFrames
        self.report = report
        #if canImport(CKeypadGPIO)
            var error = kp_error()
            var offsets: [Int32] = [d0, d1].map { if case .offset(let value) = $0 { Int32(value) } else { -1 } }
            let names = [d0, d1].map { if case .name(let value) = $0 { value } else { "" } }
            let opened: OpaquePointer? = names[0].withCString { name0 in
                names[1].withCString { name1 in
                    var pointers: [UnsafePointer<CChar>?] = [name0, name1]
                    return kp_pulse_inputs_open(chip, &offsets, &pointers, 2, GPIOMatrixBackend.consumer, &error)
                }
            }
            guard let opened else {
                let line = error.index == 1 ? d1 : d0
                let described = GPIOOutputLine.describe(error, chip: chip, line: line, key: "keypad")
                let key = described.key == "keypad.line" ? (error.index == 1 ? "keypad.d1" : "keypad.d0") : described.key
                throw KeyedError(key: key, message: described.message, fix: described.fix, kind: described.kind)
            }
            handle = opened
        #else
            throw KeyedError(key: "keypad.driver", message: "wiegand needs libgpiod support in this build", kind: .unavailable(retryable: false))
        #endif
    }

    deinit {
        #if canImport(CKeypadGPIO)
            kp_close(handle)
        #endif
    }

    public func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        let stopped = Mutex(false)
        let thread = Thread { [self] in
            #if canImport(CKeypadGPIO)
                kp_set_thread_name(WiegandKeySource.threadName)
            #endif
            do {
                try read(deliver: deliver, stopped: stopped)
            } catch {
                if !stopped.withLock({ $0 }) { finished(error) }
            }
        }
        thread.name = WiegandKeySource.threadName
        thread.start()
        return KeySourceRun(stop: { [self] in
            stopped.withLock { $0 = true }
            #if canImport(CKeypadGPIO)
                kp_wake(handle)
            #endif
        })
    }

    private func read(deliver: @Sendable (KeySourceEvent) -> Void, stopped: borrowing Mutex<Bool>) throws {
        #if canImport(CKeypadGPIO)
            var decoder = WiegandDecoder(frameGap: frameGap)
            var edges = [kp_edge](repeating: kp_edge(), count: 64)
            func emit(_ result: Result<WiegandFrame, WiegandFrame.Rejection>) {
                switch result {
                case .failure(let rejection):
                    report(.dropped(reason: rejection.rawValue))
                case .success(.number(let bits, let data)) where longFrames == .card:
                    report(.card(bits: bits, data: data))
                    deliver(.card(WiegandKeySource.card(data, bits: bits)))
                case .success(let frame):
                    guard let keys = WiegandKeySource.keys(for: frame, pinDigits: pinDigits) else {
                        report(.dropped(reason: WiegandKeySource.pinLength))
                        return
                    }
                    if case .number(let bits, _) = frame { report(.wholePIN(bits: bits, digits: keys.count - 2)) }
                    for key in keys { deliver(.key(key)) }
                }
            }
            while !stopped.withLock({ $0 }) {
                let timeout = decoder.deadline.map { Int32(clamping: max(1, ($0 - Self.monotonicNow() + .microseconds(999)).wholeMilliseconds)) } ?? -1
                guard kp_wait_edge(handle, timeout) >= 0 else { throw failure("waiting for an edge on") }
                guard !stopped.withLock({ $0 }) else { return }
                let count = kp_read_edges(handle, &edges, UInt32(edges.count))
                guard count >= 0 else { throw failure("reading the edge events of") }
                for edge in edges[0..<Int(count)].sorted(by: { $0.timestamp_ns < $1.timestamp_ns }) where edge.rising == 0 {
                    if let ended = decoder.pulse(one: edge.line == 1, at: .nanoseconds(Int64(edge.timestamp_ns))) { emit(ended) }
                }
                if let ended = decoder.frame(at: Self.monotonicNow()) { emit(ended) }
            }
        #endif
    }

    /// The drop reason of a whole PIN with more digits than an entry takes.
    public static let pinLength = "pin_length"

    /// The keys a frame types: a key frame its label; a whole PIN `clear`, its digits and
    /// `submit` (so a partial entry never mixes with it), or nil when it has more digits
    /// than `pinDigits` allows.
    public static func keys(for frame: WiegandFrame, pinDigits: ClosedRange<Int>) -> [KeyInput]? {
        switch frame {
        case .key(let label):
            return [.label(label)]
        case .number(_, var data):
            var digits: [UInt8] = []
            repeat {
                digits.insert(UInt8(data % 10), at: 0)
                data /= 10
            } while data > 0
            defer { for index in digits.indices { digits[index] = 0 } }
            guard digits.count <= pinDigits.upperBound else { return nil }
            let padding = [UInt8](repeating: 0, count: max(0, pinDigits.lowerBound - digits.count))
            var keys: [KeyInput] = [.action(.clear)]
            for digit in padding + digits { keys.append(.action(.digit(digit))) }
            keys.append(.action(.submit))
            return keys
        }
    }

    /// A card's data bits as the value sent: decimal, zero-padded to
    /// ``WiegandLongFrames/cardDigits(bits:)``.
    public static func card(_ data: UInt32, bits: Int) -> SecretDigits {
        SecretDigits.zeroPadded(UInt64(data), width: WiegandLongFrames.cardDigits(bits: bits))
    }

    static func monotonicNow() -> Duration {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return .seconds(Int64(now.tv_sec)) + .nanoseconds(Int64(now.tv_nsec))
    }

    private func failure(_ doing: String) -> KeyedError {
        KeyedError(key: "keypad.chip", message: "\(doing) the Wiegand lines failed: \(String(cString: strerror(errno)))", kind: .unavailable(retryable: true))
    }
}
