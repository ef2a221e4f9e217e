import AsyncHTTPClient
import KioskPadCore
import NIOCore
import NIOHTTP1

/// HTTP to a `verifier serve` on 127.0.0.1, through AsyncHTTPClient (the client the product
/// uses) with a deadline on every request. Foundation's URLSession on Linux is not used: with
/// 50 requests at once it left a test waiting forever while neither server had a request in
/// flight.
enum LoopbackHTTP {
    /// A status and a body read to its end.
    struct Answer: Sendable {
        let status: Int
        let body: String
    }

    /// GETs `path` from the server on `port`.
    static func get(port: Int, path: String, timeout: Duration = .seconds(20)) async throws -> Answer {
        try await send(HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)"), timeout: timeout)
    }

    /// POSTs `body` as JSON with `headers` added to `path` on the server on `port`.
    static func post(
        port: Int, path: String, body: [UInt8], headers: [(name: String, value: String)], timeout: Duration = .seconds(20)
    ) async throws -> Answer {
        try await send(.POST, port: port, path: path, body: body, headers: headers, timeout: timeout)
    }

    /// PUTs `body` as JSON, as ``post(port:path:body:headers:timeout:)`` does.
    static func put(
        port: Int, path: String, body: [UInt8], headers: [(name: String, value: String)], timeout: Duration = .seconds(20)
    ) async throws -> Answer {
        try await send(.PUT, port: port, path: path, body: body, headers: headers, timeout: timeout)
    }

    private static func send(
        _ method: HTTPMethod, port: Int, path: String, body: [UInt8], headers: [(name: String, value: String)], timeout: Duration
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)\(path)")
        request.method = method
        request.headers.add(name: "content-type", value: "application/json")
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        request.body = .bytes(ByteBuffer(bytes: body))
        return try await send(request, timeout: timeout)
    }

    private static func send(_ request: HTTPClientRequest, timeout: Duration) async throws -> Answer {
        let response = try await HTTPClient.shared.execute(request, timeout: .nanoseconds(timeout.wholeNanoseconds))
        let body = try await response.body.collect(upTo: 1 << 20)
        return Answer(status: Int(response.status.code), body: String(buffer: body))
    }
}
