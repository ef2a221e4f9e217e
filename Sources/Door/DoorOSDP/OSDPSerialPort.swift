import Foundation
import KioskPadCore

#if canImport(Glibc)
    import Glibc
#endif

/// The serial line to the readers: a tty (a USB RS-485 adapter, a Pi's UART with an RS-485
/// HAT, or a pseudo-terminal in tests) in raw mode, 8N1, at the configured speed, without
/// flow control; reads wait in `poll(2)` on the line and on a wake pipe, so a stop ends a
/// wait at once. Used from one thread only (the bus thread); `wake()` from any.
final class OSDPSerialPort: @unchecked Sendable {
    // @unchecked: `fd` and the pipe are used by the bus thread only; `wake()` writes one byte
    // to the pipe, which is thread-safe.
    let path: String
    private let fd: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32

    /// The speeds a reader may be set to (SIA OSDP v2.2: 9600 is every reader's default).
    static let speeds: [Int: speed_t] = [
        9600: speed_t(B9600), 19200: speed_t(B19200), 38400: speed_t(B38400), 57600: speed_t(B57600),
        115200: speed_t(B115200), 230400: speed_t(B230400),
    ]

    /// Opens `path` at `baud`. Errors name `keypad.device`.
    init(path: String, baud: Int) throws {
        self.path = path
        let opened = open(path, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard opened >= 0 else {
            let code = errno
            let retryable = code == ENOENT || code == EBUSY || code == EACCES || code == ENODEV || code == EIO
            throw KeyedError(
                key: "keypad.device", message: "cannot open \(path): \(String(cString: strerror(code)))",
                fix: code == EACCES ? "add the service user to the dialout group" : nil, kind: .unavailable(retryable: retryable))
        }
        var settings = termios()
        guard tcgetattr(opened, &settings) == 0 else {
            let message = String(cString: strerror(errno))
            close(opened)
            throw KeyedError(key: "keypad.device", message: "\(path) is not a serial device: \(message)", kind: .unavailable(retryable: false))
        }
        cfmakeraw(&settings)
        let speed = Self.speeds[baud] ?? speed_t(B9600)
        cfsetispeed(&settings, speed)
        cfsetospeed(&settings, speed)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~(tcflag_t(CSTOPB) | tcflag_t(CRTSCTS))
        withUnsafeMutableBytes(of: &settings.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(opened, TCSANOW, &settings)
        tcflush(opened, TCIOFLUSH)
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else {
            close(opened)
            throw KeyedError(key: "keypad.device", message: "cannot make a wake pipe: \(String(cString: strerror(errno)))", kind: .unavailable(retryable: true))
        }
        for end in pipeEnds {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        fd = opened
        wakeRead = pipeEnds[0]
        wakeWrite = pipeEnds[1]
    }

    deinit {
        close(fd)
        close(wakeRead)
        close(wakeWrite)
    }

    /// Ends the current or next wait.
    func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Writes all of `bytes`, waiting for room when the line is full.
    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0, errno == EAGAIN || errno == EINTR {
                var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
                _ = poll(&entry, 1, 100)
            } else {
                throw failure("writing to")
            }
        }
    }

    /// What arrives within `timeout`: bytes, empty when the time ran out, nil when woken.
    func receive(within timeout: Duration) throws -> [UInt8]? {
        var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
        let (seconds, attoseconds) = timeout.components
        let milliseconds = Int32(clamping: max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
        let ready = poll(&entries, 2, milliseconds)
        if ready < 0 {
            if errno == EINTR { return [] }
            throw failure("waiting on")
        }
        if entries[1].revents != 0 {
            var drain = [UInt8](repeating: 0, count: 64)
            _ = read(wakeRead, &drain, drain.count)
            return nil
        }
        guard entries[0].revents != 0 else { return [] }
        if entries[0].revents & Int16(POLLIN) == 0 { throw failure("reading from") }
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = read(fd, &buffer, buffer.count)
        if count < 0 {
            if errno == EAGAIN || errno == EINTR { return [] }
            throw failure("reading from")
        }
        guard count > 0 else { throw failure("reading from") }
        return Array(buffer[0..<count])
    }

    private func failure(_ doing: String) -> KeyedError {
        KeyedError(key: "keypad.device", message: "\(doing) \(path) failed: \(String(cString: strerror(errno)))", kind: .unavailable(retryable: true))
    }
}
