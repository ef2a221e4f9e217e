import DoorVerifierClient
import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteHTTP
import Testing
import VerifierTestSupport

#if canImport(Glibc)
    import Glibc
    import SiteCore
#endif

/// The reference server's connection limits, against real sockets on loopback (the flood
/// test runs against the `kioskpad verifier serve` process: KioskPadCLITests).
@Suite("Reference server: connection limits", .serialized, .heavy)
struct ServerLimitsTests {
    let secret = WebhookSecret.generate()

    func reference() async throws -> ReferenceVerifier {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        return try await ReferenceVerifier.overNewStore(settings: .init(secret: secret), users: try UsersFile(parsing: "carol:\(hash)\n", source: "users"))
    }

    /// Sends `request` on a new loopback connection and reads (on a thread of its own, up to
    /// 6 s) until the server closes it: what came back, and whether it closed.
    func exchange(_ request: String, port: Int) async throws -> (answer: String, closed: Bool) {
        let fd = LoopbackSocket.connect(from: "127.0.0.1", to: port)
        defer { close(fd) }
        #expect(LoopbackSocket.awaitWritable(fd, milliseconds: 6_000), "connected")
        let bytes = Array(request.utf8)
        #expect(bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == bytes.count)
        let (received, closed) = try await onOwnThread { LoopbackSocket.readUntilClosed(fd, milliseconds: 6_000) }
        return (String(decoding: received, as: UTF8.self), closed)
    }

    @Test func anHTTP10RequestGetsItsAnswerAndTheConnectionIsClosed() async throws {
        // The request timeout (10 s by default) would close the connection too; reading
        // stops at 6 s, so a close seen here is the HTTP/1.0 close after the answer.
        try await withReferenceServer(try await reference()) { port in
            let (answer, closed) = try await exchange("GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n", port: port)
            #expect(answer.contains("200"))
            #expect(closed, "an HTTP/1.0 request without keep-alive closes the connection after the answer")
        }
    }

    @Test(arguments: [("TRACE /verify", "POST"), ("GET /verify", "POST"), ("POST /healthz", "GET"), ("DELETE /metrics", "GET")])
    func aMethodThePathDoesNotTakeIs405NamingTheOneItDoes(requestLine: String, allowed: String) async throws {
        try await withReferenceServer(try await reference()) { port in
            let answer = try await exchange("\(requestLine) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port).answer.lowercased()
            #expect(answer.hasPrefix("http/1.1 405"), "\(answer)")
            #expect(answer.contains("allow: \(allowed.lowercased())\r\n"), "\(answer)")
        }
    }

    @Test func aPathTheServerDoesNotHaveIsStill404() async throws {
        try await withReferenceServer(try await reference()) { port in
            let answer = try await exchange("TRACE /nothing-here HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n", port: port).answer
            #expect(answer.hasPrefix("HTTP/1.1 404"), "\(answer)")
        }
    }

    @Test func aSlowHeaderIsCutOffAtTheRequestTimeout() async throws {
        let limits = ConnectionLimits(requestTimeout: .seconds(1))
        try await withReferenceServer(try await reference(), limits: limits) { port in
            let fd = LoopbackSocket.connect(from: "127.0.0.1", to: port)
            defer { close(fd) }
            try await Task.sleep(for: .milliseconds(100))
            var closedAfter: Int?
            for second in 1...4 {  // one header byte every 500 ms never completes a request
                _ = Array("P".utf8).withUnsafeBytes { send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                try await Task.sleep(for: .milliseconds(500))
                var probe = [UInt8](repeating: 0, count: 512)
                var got = 0
                repeat { got = recv(fd, &probe, probe.count, Int32(MSG_DONTWAIT)) } while got > 0  // an error answer may come first
                // Closed: end of file, or a reset (the server had unread bytes of ours).
                if got == 0 || (got < 0 && errno == ECONNRESET) {
                    closedAfter = second
                    break
                }
            }
            #expect(closedAfter != nil && closedAfter! <= 3, "closed after \(closedAfter.map { "\($0 * 500) ms" } ?? "never")")
        }
    }
}
