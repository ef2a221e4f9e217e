import SiteCore

extension VerifierDecision {
    /// "granted" or "denied" for an answer (a repeated one too); nil for anything else.
    var answerText: String? {
        if case .repeated(let original) = self { return original.answerText }
        if case .answer(let granted, _, _, _, _) = self { return granted ? "granted" : "denied" }
        if case .secondFactorRequired = self { return "second_factor_required" }
        if case .lockedOut = self { return "denied" }
        return nil
    }

    /// Why the request was refused, or nil.
    var refusal: Refusal? {
        if case .refused(let refusal, _) = self { return refusal }
        return nil
    }

    /// A short name for counting outcomes: the refusal, "throttled", "answer" or "unavailable".
    var outcomeName: String {
        switch self {
        case .answer, .lockedOut, .secondFactorRequired, .cardEnrolled, .enrolment, .repeated: return "answer"
        case .refused(let refusal, _): return refusal.rawValue
        case .throttled: return "throttled"
        case .unavailable: return "unavailable"
        }
    }
}
