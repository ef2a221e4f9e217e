import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The sd_notify protocol over `$NOTIFY_SOCKET` (a unix datagram socket; `@` marks the
/// abstract namespace): READY=1, STOPPING=1, STATUS=..., WATCHDOG=1. Without the variable
/// (not under systemd) every call does nothing.
public struct SystemdNotifier: Sendable {
    public let socketPath: String?
    /// Half the watchdog interval from `$WATCHDOG_USEC`, if the unit has `WatchdogSec=`.
    public let watchdogInterval: Duration?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        socketPath = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = environment["WATCHDOG_USEC"], let usec = Int(text), usec > 0 {
            watchdogInterval = .microseconds(usec / 2)
        } else {
            watchdogInterval = nil
        }
    }

    public func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    public func stopping() { send("STOPPING=1") }
    public func status(_ text: String) { send("STATUS=\(text)") }
    public func watchdog() { send("WATCHDOG=1") }

    @discardableResult
    public func send(_ message: String) -> Bool {
        guard let socketPath else { return false }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var pathBytes = Array(socketPath.utf8)
        if pathBytes.first == UInt8(ascii: "@") { pathBytes[0] = 0 }
        guard pathBytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return false }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in pathBytes.enumerated() { raw[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + pathBytes.count)
        let bytes = Array(message.utf8)
        let sent = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sockaddrPointer in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, 0, sockaddrPointer, length) }
            }
        }
        return sent == bytes.count
    }
}
