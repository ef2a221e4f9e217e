import Foundation
import KioskPadCore

/// One completed entry on its way to a verifier (docs/protocol.md).
public struct VerificationAttempt: Sendable {
    public let terminalID: String
    public let kind: AttemptKind
    /// The PIN, code or card; for `card_pin`, the card.
    public let value: SecretDigits
    /// For `card_pin`: the PIN typed after the card.
    public let pin: SecretDigits?
    /// Random UUID v4; the same on every retry of this attempt.
    public let attemptID: UUID
    public let enteredAt: Date

    public init(
        terminalID: String, kind: AttemptKind, value: SecretDigits, pin: SecretDigits? = nil, attemptID: UUID = UUID(), enteredAt: Date = Date()
    ) {
        self.terminalID = terminalID
        self.kind = kind
        self.value = value
        self.pin = pin
        self.attemptID = attemptID
        self.enteredAt = enteredAt
    }
}

/// The seam between the terminal and whoever decides: the local users file now, an HTTP
/// endpoint later. A verifier never throws: anything that is not a clear decision is
/// ``AttemptOutcome/unavailable`` (fail secure).
public protocol Verifier: Sendable {
    func verify(_ attempt: VerificationAttempt) async -> AttemptOutcome
    /// The outcome and where it came from. By default ``verify(_:)``'s, from the verifier
    /// itself; a verifier that can fall back to the door's credential replica says so.
    func decide(_ attempt: VerificationAttempt) async -> AttemptDecision
    /// Releases connections and threads; called once when the terminal stops.
    func shutdown() async
    /// Sends a PIN chosen at the door with an enrolment code to the site (`POST /v1/enrol`).
    /// By default there is no site to take it: ``EnrolmentOutcome/unavailable``.
    func enrol(terminalID: String, code: SecretDigits, pin: SecretDigits, attemptID: UUID) async -> EnrolmentOutcome
}

extension Verifier {
    public func enrol(terminalID: String, code: SecretDigits, pin: SecretDigits, attemptID: UUID) async -> EnrolmentOutcome {
        .unavailable
    }

    public func decide(_ attempt: VerificationAttempt) async -> AttemptDecision {
        AttemptDecision(await verify(attempt))
    }

    public func shutdown() async {}
}

/// A verifier's outcome for one attempt and where it came from: the verifier itself, or,
/// when it could not answer, the door's credential replica (`offline`: decided from it, or
/// refused to).
public struct AttemptDecision: Sendable, Equatable {
    public let outcome: AttemptOutcome
    public let offline: OfflineDecision?

    public init(_ outcome: AttemptOutcome, offline: OfflineDecision? = nil) {
        self.outcome = outcome
        self.offline = offline
    }
}
