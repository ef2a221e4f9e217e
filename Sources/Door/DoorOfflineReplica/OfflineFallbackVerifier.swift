import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging

/// `verifier.offline.mode: fallback`: asks the HTTP verifier first, always; only when it
/// cannot answer (refused, reset, deadline, 5xx; never after a decision, a 4xx or a bad
/// body) does the door decide from its replica, with the same hashes, rules and duress as
/// the verifier. Codes are never decided offline: one-time and TOTP codes (their single use
/// needs the server) and visitor passes (their count of uses does), nor is anything without
/// a usable replica. Every attempt the verifier could
/// not answer, decided or not, carries an ``OfflineDecision`` in its answer.
public final class OfflineFallbackVerifier: Verifier {
    private let online: HTTPVerifier
    private let keeper: ReplicaKeeper
    private let logger: Logger

    public init(online: HTTPVerifier, keeper: ReplicaKeeper, logger: Logger) {
        self.online = online
        self.keeper = keeper
        self.logger = logger
    }

    /// The HTTP verifier asked first (an adopted door's check-in signs with its secret too).
    public var onlineVerifier: HTTPVerifier { online }

    public func verify(_ attempt: VerificationAttempt) async -> AttemptOutcome {
        await decide(attempt).outcome
    }

    /// Only the site sets a PIN: offline, nothing is set (the door says `Verifier unavailable`).
    public func enrol(terminalID: String, code: SecretDigits, pin: SecretDigits, attemptID: UUID) async -> EnrolmentOutcome {
        await online.enrol(terminalID: terminalID, code: code, pin: pin, attemptID: attemptID)
    }

    public func decide(_ attempt: VerificationAttempt) async -> AttemptDecision {
        let id = attempt.attemptID.uuidString.lowercased()
        switch await online.answer(attempt) {
        case .decided(let outcome):
            keeper.noteDecidedOffline(false)
            return AttemptDecision(outcome)
        case .broken:
            keeper.noteDecidedOffline(false)
            return AttemptDecision(.unavailable)
        case .unreachable(let unreachable):
            guard attempt.kind != .code else {
                return refuse(id, "codes are never decided offline (one-time, TOTP and visitor passes): the site counts their uses", unreachable)
            }
            switch keeper.offlineVerifier() {
            case .failure(let why):
                return refuse(id, why.description, unreachable)
            case .success(let (verifier, version)):
                let outcome = await verifier.verify(attempt)
                keeper.noteDecidedOffline(true)
                let decision = outcome.decision.rawValue
                logger.notice(
                    "decided offline from the credential replica",
                    metadata: ["attempt_id": "\(id)", "replica_version": "\(version)", "decision": "\(decision)"])
                return AttemptDecision(
                    outcome, offline: OfflineDecision(decision: decision, replicaVersion: version, refusal: nil, siteUnreachable: unreachable))
            }
        }
    }

    private func refuse(_ id: String, _ why: String, _ unreachable: String) -> AttemptDecision {
        logger.warning("not decided offline; door stays shut", metadata: ["attempt_id": "\(id)", "why": "\(why)"])
        return AttemptDecision(
            .unavailable, offline: OfflineDecision(decision: "refused", replicaVersion: keeper.held?.version, refusal: why, siteUnreachable: unreachable))
    }

    public func shutdown() async {
        await online.shutdown()
    }
}
