import AsyncHTTPClient
import KioskPadAccess
import NIOCore

/// A `POST` of a JSON body, signed per Standard Webhooks when a secret is set (headers
/// `webhook-id`, `webhook-timestamp`, `webhook-signature`), with an optional bearer token.
/// Both the verifier client and the events poster send their requests this way. The door
/// names itself in `kioskpad-terminal` (the `terminal_id` its body carries too), so the
/// server chooses the key and checks the signature before it parses the body.
enum SignedJSONRequest {
    static func make(url: String, body: [UInt8], id: String, terminal: String, secret: WebhookSecret?, bearerToken: String? = nil) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/json")
        request.headers.add(name: "user-agent", value: "kioskpad")
        request.headers.add(name: "kioskpad-terminal", value: terminal)
        if let secret {
            for header in WebhookSignature.headers(id: id, body: body, secret: secret) {
                request.headers.add(name: header.name, value: header.value)
            }
        }
        if let bearerToken { request.headers.add(name: "authorization", value: "Bearer \(bearerToken)") }
        request.body = .bytes(ByteBuffer(bytes: body))
        return request
    }
}
