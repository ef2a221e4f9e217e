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
        _ = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        return fd
    }

    /// Waits (blocking, up to `milliseconds`) until a non-blocking `connect` has finished.
    public static func awaitWritable(_ fd: Int32, milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        while true {
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            return ready == 1 && entry.revents & Int16(POLLOUT) != 0
        }
    }

    /// Reads (blocking: call it through `onOwnThread`) until the peer closes or `milliseconds`
    /// pass; returns the bytes and whether the peer closed. A signal meanwhile is retried, not
    /// taken for the end.
    public static func readUntilClosed(_ fd: Int32, milliseconds: Int) -> (bytes: [UInt8], closed: Bool) {
        let deadline = ContinuousClock.now + .milliseconds(milliseconds)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, Int32(max(1, left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)))
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { break }
            let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            if count == 0 { return (received, true) }
            if count < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return (received, errno == ECONNRESET)
            }
            received += buffer[0..<count]
        }
        return (received, false)
    }

    /// The first address `getaddrinfo` gives for "localhost" (what a server bound to
    /// "localhost" listens on): "127.0.0.1" or "::1", as /etc/hosts says.
    public static func firstAddressOfLocalhost() -> String {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo("localhost", nil, &hints, &list) == 0, let first = list else { return "127.0.0.1" }
        defer { freeaddrinfo(list) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        if first.pointee.ai_family == AF_INET6 {
            var address = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            inet_ntop(AF_INET6, &address, &text, socklen_t(text.count))
        } else {
            var address = first.pointee.ai_addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            inet_ntop(AF_INET, &address, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
