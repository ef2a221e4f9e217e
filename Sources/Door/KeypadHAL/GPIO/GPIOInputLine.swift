import KioskPadCore

#if canImport(CKeypadGPIO)
    import CKeypadGPIO
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// One input that reports changes: read its level, wait for a change, be woken to stop.
/// ``GPIOInputLine`` is a real line with kernel edge events.
public protocol DigitalInput: AnyObject, Sendable {
    /// The line's level now (true: active).
    func isActive() throws -> Bool
    /// Waits until the line changes, `timeout` passes (nil: no limit) or ``wake()`` is called.
    func waitForChange(timeout: Duration?) throws
    /// Makes a waiting ``waitForChange(timeout:)`` return; safe from any thread.
    func wake()
}

/// A single GPIO input line with both-edge events (door contact, exit button, tamper),
/// requested with a pull-up when `activeLow` (a switch to ground makes it active).
/// `key` names the config key in errors (`door.contact`). Released on deinit.
public final class GPIOInputLine: DigitalInput, @unchecked Sendable {
    // @unchecked: the handle is used by one watching thread; wake() writes to a pipe and is
    // thread-safe in the C layer; deinit runs after that thread has ended.
    public let key: String
    #if canImport(CKeypadGPIO)
        private let handle: OpaquePointer
    #endif

    public init(chip: String, line: LineReference, activeLow: Bool, key: String) throws {
        self.key = key
        #if canImport(CKeypadGPIO)
            var error = kp_error()
            var offset: Int32 = -1
            var name = ""
            switch line {
            case .offset(let value): offset = Int32(value)
            case .name(let value): name = value
            }
            let opened: OpaquePointer? = name.withCString { cName in
                var names: [UnsafePointer<CChar>?] = [cName]
                return kp_inputs_open(chip, &offset, &names, 1, activeLow ? 1 : 0, GPIOMatrixBackend.consumer, &error)
            }
            guard let opened else { throw GPIOOutputLine.describe(error, chip: chip, line: line, key: key) }
            handle = opened
        #else
            throw KeyedError(key: key, message: "GPIO inputs need libgpiod support in this build", kind: .unavailable(retryable: false))
        #endif
    }

    deinit {
        #if canImport(CKeypadGPIO)
            kp_close(handle)
        #endif
    }

    public func isActive() throws -> Bool {
        #if canImport(CKeypadGPIO)
            var mask: UInt8 = 0
            guard kp_read_columns(handle, &mask) == 0 else { throw failure("reading") }
            return mask & 1 != 0
        #else
            return false
        #endif
    }

    public func waitForChange(timeout: Duration?) throws {
        #if canImport(CKeypadGPIO)
            let milliseconds = timeout.map { Int32(clamping: max(1, ($0 + .microseconds(999)).wholeMilliseconds)) } ?? -1
            guard kp_wait_edge(handle, milliseconds) >= 0 else { throw failure("waiting for an edge on") }
            var first: UInt64 = 0
            guard kp_drain_edges(handle, &first, nil) == 0 else { throw failure("reading the edge events of") }
        #endif
    }

    public func wake() {
        #if canImport(CKeypadGPIO)
            kp_wake(handle)
        #endif
    }

    private func failure(_ doing: String) -> KeyedError {
        KeyedError(key: key, message: "\(doing) the line failed: \(String(cString: strerror(errno)))", kind: .unavailable(retryable: true))
    }
}
