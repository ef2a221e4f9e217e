import AsyncHTTPClient
import Foundation
import KioskPadAccess
import KioskPadCore
import NIOCore

/// What the site answered a door's check-in (`POST /v1/check-in`).
public struct CheckInAnswer: Sendable, Equatable {
    /// When to check in again (the site's `server.check_in_seconds`).
    public let interval: Duration
    /// The door's next secret sealed under its current one, while a rotation waits.
    public let sealedRotation: String?
}

extension HTTPVerifier {
    /// Why a check-in got no answer; the text names the status or the problem, never a secret.
    public struct CheckInFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// `verifier.url` with the path `/v1/check-in`: the same site, TLS trust and secret.
    static func checkInURL(_ url: String) -> String {
        guard var parts = URLComponents(string: url) else { return url }
        parts.path = "/v1/check-in"
        parts.query = nil
        return parts.string ?? url
    }

    /// Asks the site, signed with the secret in use now, whether it has a rotation for
    /// `terminalID`; throws ``CheckInFailure`` for anything but a 200 with the answer's body.
    public func checkIn(terminalID: String) async throws -> CheckInAnswer {
        let body = Array("{\"terminal_id\":\(VerificationRequestBody.jsonString(terminalID))}".utf8)
        let request = SignedJSONRequest.make(
            url: Self.checkInURL(settings.url), body: body, id: UUID().uuidString.lowercased(), terminal: terminalID, secret: secret,
            bearerToken: settings.bearerToken)
        let response = try await client.execute(request, timeout: .seconds(10), logger: logger)
        let buffer = try await response.body.collect(upTo: settings.maxResponseBytes)
        guard response.status == .ok else {
            throw CheckInFailure(description: "the site answered \(response.status.code) \(String(buffer: buffer).prefix(200))")
        }
        guard let fields = (try? StrictJSON.parse(Array(buffer: buffer)).get()).flatMap(StrictJSON.Fields.init),
            let seconds = fields.integer("check_in_s"), (1...3_600).contains(seconds)
        else { throw CheckInFailure(description: "the site's answer has no check_in_s from 1 to 3600") }
        var sealed: String?
        if fields.has("rotation") {
            guard let text = fields.object["rotation"].flatMap(StrictJSON.Fields.init)?.string("sealed") else {
                throw CheckInFailure(description: "the site's rotation has no sealed secret")
            }
            sealed = text
        }
        return CheckInAnswer(interval: .seconds(Int(seconds)), sealedRotation: sealed)
    }
}
