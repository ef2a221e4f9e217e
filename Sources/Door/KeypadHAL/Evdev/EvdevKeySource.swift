import CKeypadInput
import Foundation
import KioskPadCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A kernel input device as the keypad: a USB numeric keypad, a keyboard, or a matrix
/// behind the kernel's `gpio-matrix-keypad` driver (`/dev/input/eventN`). Opened by path
/// (`/dev/input/by-id/...` works) or by name (`name:TEXT`: the first device whose name
/// contains TEXT), grabbed exclusively (`EVIOCGRAB`) so its keys reach nothing else (not a
/// console), and read on a thread of its own (`kp-evdev`) asleep in `poll(2)`. When the
/// device goes away (unplugged) the source finishes with the error; a
/// ``RetryingKeySource`` reopens it when it is back. Read as ``Reading/cards(dropped:)`` it
/// is a USB card reader that types: each line of digits ended by Enter is one card
/// (``EvdevCardLine``), and no key reaches the entry.
public final class EvdevKeySource: KeySource, @unchecked Sendable {
    // @unchecked: the descriptor is read only by the reading thread; stop() writes to the
    // wake pipe, which is thread-safe; both descriptors are closed by that thread.
    public static let threadName = "kp-evdev"
    /// `struct input_event`: a `timeval` (two C longs), type, code, value.
    static let eventSize = 2 * MemoryLayout<Int>.size + 8

    /// What the device's keys are.
    public enum Reading: Sendable {
        /// Keys of the entry (a keypad).
        case keys
        /// Cards typed by a reader; `dropped` is told the length of a line that is no card.
        case cards(dropped: @Sendable (_ digits: Int) -> Void)
    }

    public var isScripted: Bool { false }
    public let path: String
    public let name: String
    private let fd: Int32
    private let map: EvdevKeyMap
    private let reading: Reading

    /// Opens and grabs the device; errors name `key` (`keypad.device`, `card_reader.device`).
    public init(device: String, map: EvdevKeyMap = EvdevKeyMap(), key: String = "keypad.device", reading: Reading = .keys) throws {
        self.map = map
        self.reading = reading
        let path = try EvdevKeySource.resolve(device, key: key)
        let fd = kp_evdev_open(path)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw KeyedError(
                key: key, message: "cannot open \(path): \(reason)",
                fix: errno == EACCES ? "install the udev rule from deploy/ (group input) or run as a member of group input" : nil,
                kind: .unavailable(retryable: true))
        }
        guard kp_evdev_grab(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw KeyedError(key: key, message: "cannot grab \(path) (\(reason)); another program holds it exclusively", kind: .unavailable(retryable: true))
        }
        self.fd = fd
        self.path = path
        name = EvdevKeySource.name(of: fd) ?? path
    }

    public func start(
        deliver: @escaping @Sendable (KeySourceEvent) -> Void,
        finished: @escaping @Sendable ((any Error)?) -> Void
    ) -> KeySourceRun {
        var pipe: [Int32] = [-1, -1]
        guard kp_wake_pipe(&pipe) == 0 else {
            close(fd)
            finished(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
            return KeySourceRun(stop: {})
        }
        let (fd, wake, map, path, reading) = (self.fd, pipe, self.map, self.path, self.reading)
        let stopped = Mutex(false)
        let thread = Thread {
            kp_input_thread_name(EvdevKeySource.threadName)
            defer {
                close(fd)
                close(wake[0])
                close(wake[1])
            }
            var buffer = [UInt8](repeating: 0, count: EvdevKeySource.eventSize * 64)
            let cardLine: EvdevCardLine?
            if case .cards = reading { cardLine = EvdevCardLine() } else { cardLine = nil }
            while true {
                var fds = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake[0], events: Int16(POLLIN), revents: 0)]
                let ready = poll(&fds, 2, -1)
                if ready < 0 && errno == EINTR { continue }
                if stopped.withLock({ $0 }) { return }
                if ready < 0 || fds[0].revents & Int16(POLLERR | POLLHUP | POLLNVAL) != 0 && fds[0].revents & Int16(POLLIN) == 0 {
                    finished(POSIXError(.ENODEV, userInfo: [NSLocalizedDescriptionKey: "\(path) went away"]))
                    return
                }
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EAGAIN || errno == EINTR { continue }
                    finished(POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO))
                    return
                }
                if count == 0 { continue }
                let now = ContinuousClock.now
                for event in EvdevKeySource.events(in: buffer[0..<count]) {
                    guard let key = map.key(type: event.type, code: event.code, value: event.value) else { continue }
                    guard let cardLine, case .cards(let dropped) = reading else {
                        deliver(.key(key))
                        continue
                    }
                    switch cardLine.feed(key, at: now) {
                    case .card(let digits): deliver(.card(digits))
                    case .dropped(let digits): dropped(digits)
                    case nil: break
                    }
                }
            }
        }
        thread.name = EvdevKeySource.threadName
        thread.start()
        return KeySourceRun(stop: {
            stopped.withLock { $0 = true }
            var byte: UInt8 = 1
            _ = write(wake[1], &byte, 1)
        })
    }

    /// The input events in `bytes` (whole `struct input_event`s, native byte order).
    public static func events(in bytes: ArraySlice<UInt8>) -> [(type: UInt16, code: UInt16, value: Int32)] {
        let base = bytes.startIndex
        return stride(from: 0, through: bytes.count - eventSize, by: eventSize).map { start in
            let at = base + start + 2 * MemoryLayout<Int>.size
            func u16(_ offset: Int) -> UInt16 { UInt16(bytes[at + offset]) | UInt16(bytes[at + offset + 1]) << 8 }
            let value = UInt32(u16(4)) | UInt32(u16(6)) << 16
            return (u16(0), u16(2), Int32(bitPattern: value))
        }
    }

    /// A path as given, or for `name:TEXT` the first `/dev/input/event*` whose name contains TEXT.
    static func resolve(_ device: String, key: String) throws -> String {
        guard device.hasPrefix("name:") else {
            guard FileManager.default.fileExists(atPath: device) else {
                throw KeyedError(key: key, message: "\(device) does not exist; input devices now: \(present())", kind: .unavailable(retryable: true))
            }
            return device
        }
        let wanted = String(device.dropFirst(5))
        for path in eventDevices() {
            let fd = kp_evdev_open(path)
            guard fd >= 0 else { continue }
            defer { close(fd) }
            if let name = name(of: fd), name.contains(wanted) { return path }
        }
        throw KeyedError(key: key, message: "no input device named like '\(wanted)'; input devices now: \(present())", kind: .unavailable(retryable: true))
    }

    static func eventDevices() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/dev/input")) ?? []
        return names.filter { $0.hasPrefix("event") }
            .sorted { (Int($0.dropFirst(5)) ?? 0) < (Int($1.dropFirst(5)) ?? 0) }
            .map { "/dev/input/" + $0 }
    }

    /// "event0 'Power Button', event3 'USB Keypad'" (names when readable).
    static func present() -> String {
        let list = eventDevices().map { path -> String in
            let fd = kp_evdev_open(path)
            defer { if fd >= 0 { close(fd) } }
            let label = fd >= 0 ? name(of: fd).map { " '\($0)'" } ?? "" : " (no access)"
            return (path as NSString).lastPathComponent + label
        }
        return list.isEmpty ? "none" : list.joined(separator: ", ")
    }

    /// The device's own name (EVIOCGNAME).
    static func name(of fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 256)
        guard kp_evdev_name(fd, &buffer, buffer.count) > 0 else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
