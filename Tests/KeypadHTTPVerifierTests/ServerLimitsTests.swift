#if canImport(Glibc)
import Glibc
import ReferenceVerifierCore
#endif
import Foundation
import KeypadCore
import KeypadHTTPVerifier
import KeypadTestSupport
import KeypadVerifier
import KioskPadVerifierServer
import Testing
import VerifierTestSupport

/// The reference server's connection limits, against real sockets on loopback (the flood
/// test runs against the `kioskpad verifier serve` process: KioskPadCLITests).
@Suite("Reference server: connection limits", .serialized, .heavy)
struct ServerLimitsTests {
    let secret = WebhookSecret.generate()

    func reference() async throws -> ReferenceVerifier {
        let hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        return try await ReferenceVerifier.overNewStore(settings: .init(secret: secret), users: try UsersFile(parsing: "carol:\(hash)\n", source: "users"))
    }

    @Test func anHTTP10RequestGetsItsAnswerAndTheConnectionIsClosed() async throws {
        // The request timeout (10 s by default) would close the connection too; reading
        // stops at 6 s, so a close seen here is the HTTP/1.0 close after the answer.
        try await withReferenceServer(try await reference()) { port in
            let fd = LoopbackSocket.connect(from: "127.0.0.1", to: port)
            defer { close(fd) }
            #expect(LoopbackSocket.awaitWritable(fd, milliseconds: 6_000), "connected")
            let request = Array("GET /healthz HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
            #expect(request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) } == request.count)
            let (received, closed) = try await onOwnThread { LoopbackSocket.readUntilClosed(fd, milliseconds: 6_000) }
            #expect(String(decoding: received, as: UTF8.self).contains("200"))
            #expect(closed, "an HTTP/1.0 request without keep-alive closes the connection after the answer")
        }
    }

    @Test func aSlowHeaderIsCutOffAtTheRequestTimeout() async throws {
        let limits = ConnectionLimits(requestTimeout: .seconds(1))
        try await withReferenceServer(try await reference(), limits: limits) { port in
            let fd = LoopbackSocket.connect(from: "127.0.0.1", to: port)
            defer { close(fd) }
            try await Task.sleep(for: .milliseconds(100))
            var closedAfter: Int?
            for second in 1...4 { // one header byte every 500 ms never completes a request
                _ = Array("P".utf8).withUnsafeBytes { send(fd, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                try await Task.sleep(for: .milliseconds(500))
                var probe = [UInt8](repeating: 0, count: 512)
                var got = 0
                repeat { got = recv(fd, &probe, probe.count, Int32(MSG_DONTWAIT)) } while got > 0 // an error answer may come first
                // Closed: end of file, or a reset (the server had unread bytes of ours).
                if got == 0 || (got < 0 && errno == ECONNRESET) { closedAfter = second; break }
            }
            #expect(closedAfter != nil && closedAfter! <= 3, "closed after \(closedAfter.map { "\($0 * 500) ms" } ?? "never")")
        }
    }
}
