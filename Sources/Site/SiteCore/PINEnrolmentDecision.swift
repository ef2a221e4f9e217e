import Foundation
import KioskPadAccess
import KioskPadCore

/// `POST /v1/enrol`: a user chooses their own PIN at a door with an enrolment code an
/// administrator issued (`kioskpad verifier user enrol-code`). The request passes the same
/// checks as `/verify` and must be signed. Inside the terminal's lockout, like an attempt:
/// a code that matches no live enrolment code counts as a wrong PIN; a PIN that is too easy
/// (``WeakPIN``) or is the user's PIN or duress PIN now is refused and the code stays usable.
/// Otherwise the code is used up and the PIN line replaced in one transaction with its audit
/// record (`event: pin_enrolment`, never the PIN or code). The new PIN gets its lookup tag and
/// its replica tag (when the site has made the tag key), as `user set-pin` gives. The hashes run on the hashing
/// pool's door lane, never on a cooperative thread.
extension ReferenceVerifier {
    /// A PIN chosen at a door, admitted (``admit(_:)``) and decided (``decideEnrolment(_:)``).
    public func enrol(_ request: Incoming) async -> VerifierDecision {
        switch await admit(request) {
        case .refused(let decision): return decision
        case .admitted(let admitted): return await decideEnrolment(admitted)
        }
    }

    /// An admitted enrolment decided: signed only, its body held to the schema, then inside
    /// the terminal's lockout as an attempt.
    public func decideEnrolment(_ admitted: AdmittedDoorRequest) async -> VerifierDecision {
        let request = admitted.incoming
        let now = clock()
        let source = request.source ?? "unknown"
        let (claimed, signedID) = (admitted.terminal, admitted.requestID)
        guard let requestID = signedID else {
            return await refuse(.unauthenticated, "a PIN is set only by a signed request: give the door its secret", request, source: source, now: now)
        }
        let decoded: EnrolmentRequestBody.Decoded
        do {
            decoded = try EnrolmentRequestBody.decode(admitted.body)
        } catch {
            return await refuse(.malformed, "\(error)", request, source: source, now: now)
        }
        guard decoded.terminalID == claimed else {
            return await refuse(.malformed, ClaimedTerminal.mismatch(body: decoded.terminalID, claimed: claimed), request, source: source, now: now)
        }
        await acquire(terminal: decoded.terminalID)
        defer { release(terminal: decoded.terminalID) }
        let moment = Duration.seconds(now.timeIntervalSince1970)
        let fields = [
            ("time", timestamp(now)), ("terminal_id", decoded.terminalID), ("attempt_id", decoded.attemptID), ("kind", "enrol"),
            ("event", DoorRecordType.pinEnrolment.rawValue),
        ]
        do {
            let policy = settings.lockout
            let locked = try await store.lockout(terminal: decoded.terminalID, policy: policy).isLocked(at: moment)
            let choice = locked ? nil : try await ReferenceVerifier.enrolmentChoice(decoded, now: now, store: store, lookup: settings.lookupKey)
            let answerBy = request.answerBy
            try TooLate.check(answerBy)
            let outcome = try await store.commitAttempt(terminal: decoded.terminalID, policy: policy) { tracker, transaction in
                if try await !transaction.claimRequestID(requestID, now: now) { throw Replayed() }
                let outcome: EnrolmentOutcome
                if locked || tracker.isLocked(at: moment) {
                    outcome = .refused(.lockedOut)
                } else if let choice {
                    outcome = try await choice.apply(in: transaction, now: now)
                } else {
                    _ = tracker.recordDenial(at: moment)
                    outcome = .refused(.invalidCode)
                }
                var record = fields + [("result", outcome.result)]
                if case .refused(let reason) = outcome { record.append(("reason", reason.rawValue)) }
                if let user = choice?.user { record.append(("user", user)) }
                try await transaction.audit(record)
                // Kept with the request's id: a retry whose first answer was lost gets it again.
                if let kept = KeptAnswer(.enrolment(outcome), terminal: decoded.terminalID, attemptID: decoded.attemptID, request: request) {
                    try await transaction.keepAnswer(requestID: requestID, kept)
                }
                // Past the door's wait nothing is kept: the code stays usable, the PIN unchanged.
                try TooLate.check(answerBy)
                return outcome
            }
            return .enrolment(outcome)
        } catch let late as TooLate {
            try? await store.audit(fields + [("result", "error"), ("reason", late.reason(request))])
            return .unavailable
        } catch is Replayed {
            return await repeatOrRefuse(
                terminal: decoded.terminalID, attemptID: decoded.attemptID, kind: "enrol", requestID: requestID, request, source: source, now: now)
        } catch {
            try? await store.audit(fields + [("result", "error"), ("reason", "\(error)")])
            return .unavailable
        }
    }

    /// What the hashes said of a request: the live enrolment code it matched, and the PIN
    /// refused (why) or hashed to be set.
    struct EnrolmentChoice: Sendable {
        let code: IssuedCode
        let refusal: EnrolmentRefusal?
        let hash: PINHash?
        let tag: String?
        var replicaTag: String? = nil

        var user: String { code.user }

        /// Uses up the code and sets the PIN, or says why not (a refused PIN leaves the code).
        func apply(in transaction: any AttemptTransaction, now: Date) async throws -> EnrolmentOutcome {
            if let refusal { return .refused(refusal) }
            guard let hash, try await transaction.useCode(id: code.id, now: now) else { return .refused(.invalidCode) }
            guard try await transaction.setPIN(user: code.user, hash: hash, tag: tag, replicaTag: replicaTag) else {
                return .refused(.invalidCode)
            }
            return .pinSet(user: Identifier.isValid(code.user) ? code.user : nil)
        }
    }

    /// The live enrolment codes the typed code can match are checked (with a lookup key: its
    /// tag's and the untagged ones; without, every one; no early exit); for a match, the PIN's
    /// strength, then the user's PIN lines (each checked), then the new hash, at the work
    /// factor of the user's PIN now (the default for a user without one).
    nonisolated static func enrolmentChoice(
        _ request: EnrolmentRequestBody.Decoded, now: Date, store: any VerifierStore, lookup: LookupKey?
    ) async throws -> EnrolmentChoice? {
        let codes = try await store.liveEnrolmentCodes(now: now, lookupTag: lookup?.codeTag(request.code))
        guard let code = try await HashingPool.shared.run(.door, { OneTimeCode.match(request.code, among: codes, passes: []).0 }) else { return nil }
        if WeakPIN.problem(request.pin) != nil { return EnrolmentChoice(code: code, refusal: .weakPIN, hash: nil, tag: nil) }
        let lines = try await store.lines(of: code.user)
        let pin = request.pin
        if try await HashingPool.shared.run(.door, { lines.match(pin: pin, of: code.user) }) != nil {
            return EnrolmentChoice(code: code, refusal: .previousPIN, hash: nil, tag: nil)
        }
        let iterations = lines.users.first { $0.name == code.user && !$0.card }?.pinHash.iterations ?? PINHash.defaultIterations
        let hash = try await HashingPool.shared.makeHash(pin, iterations: iterations, lane: .door)
        var choice = EnrolmentChoice(code: code, refusal: nil, hash: hash, tag: lookup?.tag(pin, kind: .pin))
        choice.replicaTag = try await store.replicaTagKey()?.tag(pin, kind: .pin)
        return choice
    }
}
