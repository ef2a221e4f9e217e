import Foundation
import KioskPadAccess

/// The one signature check of `/verify` and `/v1/events`: a door with a secret of its own
/// (`verifier terminal add`) must sign with it, and the site secret is refused for it; other
/// doors sign with the site secret. The `terminal_id` a body claims only picks the key; the
/// body is then checked against the signature.
enum DoorSignature {
    enum Check: Equatable {
        /// No key applies (`allow_unsigned`, and the door has no secret of its own).
        case noKey
        /// Signed with the key its door must use.
        case signed
        /// Not signed with that key: why.
        case refused(String)
    }

    /// Throws when the store cannot say whether the door has a secret of its own.
    static func check(
        _ request: ReferenceVerifier.Incoming, terminal: String?, store: any VerifierStore, siteSecret: WebhookSecret?, now: Date
    ) async throws -> Check {
        var doorSecret: WebhookSecret?
        if let terminal { doorSecret = try await store.doorSecret(terminal: terminal) }
        guard let secret = doorSecret ?? siteSecret else { return .noKey }
        guard
            let failure = WebhookSignature.verify(
                id: request.webhookID, timestamp: request.webhookTimestamp, signature: request.webhookSignature,
                body: request.body, secret: secret, now: now)
        else { return .signed }
        return .refused(failure.description + (doorSecret == nil ? "" : " (door \(terminal ?? "") signs with its own secret)"))
    }
}

/// Where a door endpoint finds a request's key: the door's own secret in the store, else the
/// site secret.
struct DoorKeys: Sendable {
    let store: any VerifierStore
    let siteSecret: WebhookSecret?
}
