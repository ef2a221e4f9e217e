import Foundation
import KioskPadCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A tiny HTTP server on 127.0.0.1 (plain BSD sockets, so every fault is exactly what the
/// test asks for): it records every request and answers as told - a status, garbage, an
/// oversized or slow body, or a reset before or in the middle of a response.
public final class RecordingHTTPServer: Sendable {
    public enum Behaviour: Sendable {
        case respond(status: Int, body: String)
        /// The n-th request gets `statuses[n]`, every later one the last status.
        case statusesInTurn([Int])
        /// The first request gets 429 with `Retry-After: seconds`, every later one 200.
        case overQuotaOnce(retryAfter: Int)
        case hugeBody(bytes: Int)
        case slow(seconds: Double, body: String)
        case resetMidResponse
        case resetBeforeResponse
        /// Status and headers at once, then the body one byte every `interval`.
        case dripBody(interval: Duration, body: String)
        /// Status, headers and the first half of the body at once, then nothing (the
        /// connection stays open until ``stop()``).
        case stallBody(body: String)
    }

    public struct Recorded: Sendable {
        public let headers: [String: String]
        public let body: [UInt8]
        /// When its whole request had arrived.
        public let at: ContinuousClock.Instant
    }

    public let port: Int
    public let behaviour: Behaviour
    private let listener: Int32
    private let recorded = Mutex<[Recorded]>([])
    private let stopped = Mutex(false)

    public init(_ behaviour: Behaviour, port requested: Int = 0) throws {
        self.behaviour = behaviour
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(requested).bigEndian
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    public var requests: [Recorded] { recorded.withLock { $0 } }

    /// Stops accepting. The serving thread closes the listening socket itself when it ends,
    /// so its descriptor number cannot be reused by a new server while this thread might
    /// still call accept() on it.
    public func stop() {
        stopped.withLock { $0 = true }
        shutdown(listener, Int32(SHUT_RDWR))
    }

    private func serve() {
        defer { close(listener) }
        while !stopped.withLock({ $0 }) {
            let connection = accept(listener, nil, nil)
            if connection < 0 { return }
            handle(connection)
        }
    }

    private func handle(_ connection: Int32) {
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var headerEnd: Int?
        var contentLength = 0
        while true {
            let count = read(connection, &buffer, buffer.count)
            if count <= 0 { break }
            data += buffer[0..<count]
            if headerEnd == nil, let end = data.firstRange(of: Array("\r\n\r\n".utf8))?.upperBound {
                headerEnd = end
                let head = String(decoding: data[0..<end], as: UTF8.self).lowercased()
                if let line = head.split(separator: "\r\n").first(where: { $0.hasPrefix("content-length:") }) {
                    contentLength = Int(line.dropFirst(15).trimmingCharacters(in: .whitespaces)) ?? 0
                }
            }
            if let end = headerEnd, data.count >= end + contentLength { break }
        }
        if let end = headerEnd {
            var headers: [String: String] = [:]
            for line in String(decoding: data[0..<end], as: UTF8.self).split(separator: "\r\n").dropFirst() {
                guard let colon = line.firstIndex(of: ":") else { continue }
                headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
            recorded.withLock { $0.append(Recorded(headers: headers, body: Array(data[end...]), at: .now)) }
        }
        switch behaviour {
        case .respond(let status, let body):
            send(connection, response(status: status, body: body))
            close(connection)
        case .statusesInTurn(let statuses):
            let turn = recorded.withLock { $0.count } - 1
            send(connection, response(status: statuses[max(0, min(turn, statuses.count - 1))], body: "{}"))
            close(connection)
        case .overQuotaOnce(let seconds):
            let first = recorded.withLock { $0.count } == 1
            send(connection, first ? response(status: 429, body: "{}", headers: "Retry-After: \(seconds)\r\n") : response(status: 200, body: "{}"))
            close(connection)
        case .hugeBody(let bytes):
            send(
                connection,
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(bytes)\r\n\r\n{\"decision\":\"granted\",\"message\":\""
                    + String(repeating: "x", count: bytes - 40) + "\"}    ")
            close(connection)
        case .slow(let seconds, let body):
            Thread.sleep(forTimeInterval: seconds)
            send(connection, response(status: 200, body: body))
            close(connection)
        case .resetMidResponse:
            send(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{\"decis")
            reset(connection)
        case .resetBeforeResponse:
            reset(connection)
        case .dripBody(let interval, let body):
            send(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n")
            for byte in body.utf8 where !stopped.withLock({ $0 }) {
                guard send(connection, String(decoding: [byte], as: UTF8.self)) else { break }
                Thread.sleep(forTimeInterval: Double(interval.wholeNanoseconds) / 1e9)
            }
            close(connection)
        case .stallBody(let body):
            let half = String(body.utf8.prefix(body.utf8.count / 2))!
            send(connection, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + half)
            while !stopped.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.05) }
            close(connection)
        }
    }

    /// A whole answer; `headers`: more header lines, each ending in CRLF.
    private func response(status: Int, body: String, headers: String = "") -> String {
        "HTTP/1.1 \(status) Whatever\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\(headers)Connection: close\r\n\r\n\(body)"
    }

    /// Sends without raising SIGPIPE when the client has gone; false when it has.
    @discardableResult
    private func send(_ connection: Int32, _ text: String) -> Bool {
        let bytes = Array(text.utf8)
        return bytes.withUnsafeBytes { Glibc.send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count
    }

    /// Closes with SO_LINGER 0, so the peer sees a TCP reset.
    private func reset(_ connection: Int32) {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(connection)
    }
}
