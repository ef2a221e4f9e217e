#if canImport(Glibc)
import Glibc
#endif

/// Raw TCP sockets on loopback for tests that must control every byte and every wait.
public enum LoopbackSocket {
    /// A non-blocking TCP connection from `source` (e.g. 127.0.0.2) to 127.0.0.1:`port`,
    /// started without waiting for it to complete.
    public static func connect(from source: String, to port: Int) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        _ = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        remote.sin_port = UInt16(port).bigEndian
        _ = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        return fd
    }
}
