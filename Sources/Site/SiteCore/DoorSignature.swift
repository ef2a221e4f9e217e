import Foundation
import KioskPadAccess
import KioskPadStorage

/// The one signature check of every door endpoint: a door with a secret of its own
/// (`verifier terminal add`, or adopted) must sign with it, and the site secret is refused
/// for it; a retired door is refused; other doors sign with the site secret. The `terminal_id` a body claims only picks the key; the
/// body is then checked against the signature.
enum DoorSignature {
    enum Check: Equatable {
        /// No key applies (`allow_unsigned`, and the door has no secret of its own).
        case noKey
        /// Signed with the key its door must use; `finishedRotation`: with the next secret, which
        /// ended the door's rotation.
        case signed(finishedRotation: Bool = false)
        /// Not signed with that key: why.
        case refused(String)
        /// The door is retired: refused whatever it signed with; why.
        case retired(String)
    }

    /// Throws when the store cannot say which key the door signs with. A retired door is
    /// refused whatever it signed with; while a rotation waits, the next secret is accepted
    /// beside the current one, and the first request signed with it finishes the rotation;
    /// after that, the replaced secret only for a request timestamped before the switch.
    /// `key` is the one the store gives `terminal` (``VerifierStore/doorKey(terminal:)``), read by the caller.
    static func check(
        _ request: ReferenceVerifier.Incoming, terminal: String?, key: DoorKey, store: any VerifierStore, siteSecret: WebhookSecret?, now: Date
    ) async throws -> Check {
        func failure(_ secret: WebhookSecret) -> WebhookSignature.Failure? {
            WebhookSignature.verify(
                id: request.webhookID, timestamp: request.webhookTimestamp, signature: request.webhookSignature, body: request.body, secret: secret, now: now)
        }
        switch key {
        case .retired:
            return .retired("door \(terminal ?? "") is retired at this site")
        case .siteSecret:
            guard let siteSecret else { return .noKey }
            return failure(siteSecret).map { .refused($0.description) } ?? .signed()
        case .own(let current, let next, let previous, let deadline):
            guard let refused = failure(current) else {
                guard let deadline, next != nil, now > deadline else { return .signed() }
                return .refused(
                    "door \(terminal ?? "") did not pick up its new secret by \(UTCTimestamp.rfc3339(deadline, milliseconds: false)) "
                        + "(\(Int(DoorKey.rotationWindow / 86_400)) days after its rotation started): its old secret is refused; adopt it again (kioskpad pair)"
                )
            }
            if let next, let terminal, failure(next) == nil {
                _ = try await store.finishRotation(terminal: terminal, next: next, now: now)
                return .signed(finishedRotation: true)
            }
            // Signed before the door switched to its new secret (on its way, or retried).
            if let previous, previous.covers(timestamp: request.webhookTimestamp, now: now), failure(previous.secret) == nil { return .signed() }
            return .refused(refused.description + " (door \(terminal ?? "") signs with its own secret)")
        }
    }
}

/// Where a door endpoint finds a request's key: the door's own secret in the store, else the
/// site secret.
struct DoorKeys: Sendable {
    let store: any VerifierStore
    let siteSecret: WebhookSecret?
    /// Set for the check-in: the door's key is read with the rest of a check-in's view, in
    /// one statement (``DoorCheckInView``), and handed on with the request.
    var checkInViews: (any DoorSettingsStore)? = nil
}
