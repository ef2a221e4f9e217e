import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import NIOCore

extension HTTPVerifier {
    /// The enrolment endpoint beside `/verify` at each of the site's addresses.
    static let enrolPath = "/v1/enrol"

    /// Sends the enrolment code and the PIN chosen (`POST /v1/enrol`, signed as `/verify`
    /// is), once: a PIN change is not retried. Anything but a decoded answer within the
    /// deadline is ``EnrolmentOutcome/unavailable`` (nothing was set, or the door cannot
    /// know; the user tries again). The body is zeroed once sent.
    public func enrol(terminalID: String, code: SecretDigits, pin: SecretDigits, attemptID: UUID) async -> EnrolmentOutcome {
        var body = EnrolmentRequestBody.encode(terminalID: terminalID, code: code, pin: pin, attemptID: attemptID, enteredAt: Date())
        defer { body.withUnsafeMutableBufferPointer { $0.update(repeating: 0) } }
        let id = attemptID.uuidString.lowercased()
        let request = SignedJSONRequest.make(
            url: addresses.url(0, path: Self.enrolPath), body: body, id: id, terminal: terminalID, secret: secret, bearerToken: settings.bearerToken)
        do {
            // A second address is asked only when the first gave no answer or a 503; the site
            // takes each request id once, so an enrolment that did arrive is not made twice.
            let response = try await firstAnswer(request, path: Self.enrolPath, timeout: settings.deadline)
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
