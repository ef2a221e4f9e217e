import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import NIOCore

extension HTTPVerifier {
    /// `verifier.url` with the path `/v1/enrol`: the same site, TLS trust and secret.
    static func enrolURL(_ url: String) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        parts.path = "/v1/enrol"
        parts.query = nil
        return parts.string ?? url
    }

    /// Sends the enrolment code and the PIN chosen (`POST /v1/enrol`, signed as `/verify`
    /// is), once: a PIN change is not retried. Anything but a decoded answer within the
    /// deadline is ``EnrolmentOutcome/unavailable`` (nothing was set, or the door cannot
    /// know; the user tries again). The body is zeroed once sent.
    public func enrol(terminalID: String, code: SecretDigits, pin: SecretDigits, attemptID: UUID) async -> EnrolmentOutcome {
        var body = EnrolmentRequestBody.encode(terminalID: terminalID, code: code, pin: pin, attemptID: attemptID, enteredAt: Date())
        defer { body.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        let id = attemptID.uuidString.lowercased()
        let url = Self.enrolURL(settings.url)
        let request = SignedJSONRequest.make(url: url, body: body, id: id, terminal: terminalID, secret: secret, bearerToken: settings.bearerToken)
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(settings.deadline.wholeNanoseconds), logger: logger)
            let buffer = try await response.body.collect(upTo: settings.maxResponseBytes)
            guard response.status == .ok else {
                logger.warning("PIN enrolment not answered", metadata: ["attempt_id": "\(id)", "status": "\(response.status.code)"])
                return .unavailable
            }
            return try EnrolmentResponseBody.decode(Array(buffer: buffer))
        } catch {
            logger.warning("PIN enrolment not answered", metadata: ["attempt_id": "\(id)", "reason": "\(error)"])
            return .unavailable
        }
    }
}
