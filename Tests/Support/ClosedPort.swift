import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback port that refuses connections for as long as this object lives: a TCP
/// socket bound to 127.0.0.1 (with SO_REUSEADDR) that never listens. A port whose socket
/// was simply closed could be handed by the kernel to another test's server, which would
/// then receive requests meant for nobody (tests run in parallel); the kernel does not
/// give a held port to a port-0 bind. A test server may still bind this port on purpose
/// ("the endpoint comes back") while it is held.
public final class ClosedPort: Sendable {
    public let port: Int
    private let socket: Mutex<Int32>

    public init() throws {
        let fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EMFILE) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        socket = Mutex(fd)
    }

    deinit {
        socket.withLock { _ = close($0) }
    }
}
