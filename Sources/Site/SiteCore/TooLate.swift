/// A decision reached after the door stopped waiting for it (``AnswerWait``): thrown inside
/// the attempt's transaction, so nothing it did is kept (no code or pass used, no denial
/// counted, the request's id free for a retry), and answered 503.
struct TooLate: Error {
    let at: ContinuousClock.Instant

    /// Throws when `answerBy` has passed; nothing when it is nil (no wait given).
    static func check(_ answerBy: ContinuousClock.Instant?) throws {
        let now = ContinuousClock.now
        if let answerBy, now > answerBy { throw TooLate(at: now) }
    }

    /// The audit's reason for `request`, found too late.
    func reason(_ request: ReferenceVerifier.Incoming) -> String {
        let elapsed = at - request.arrived
        let milliseconds = elapsed.components.seconds * 1_000 + elapsed.components.attoseconds / 1_000_000_000_000_000
        return "too late: decided \(milliseconds) ms after the request arrived, past the door's wait of \(request.waitMilliseconds ?? 0) ms; "
            + "nothing used or counted"
    }
}
