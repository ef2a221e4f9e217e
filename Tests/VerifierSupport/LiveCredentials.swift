import Foundation
import SiteCore

/// What the tests read back of a store: every live code or pass, untagged by any lookup key
/// (the verifier itself always asks with the typed code's tag, or nil without a key).
extension VerifierStore {
    /// Every live one-time code.
    public func liveCodes(now: Date) async throws -> [IssuedCode] {
        try await liveCodes(now: now, lookupTag: nil)
    }

    /// Every live enrolment code.
    public func liveEnrolmentCodes(now: Date) async throws -> [IssuedCode] {
        try await liveEnrolmentCodes(now: now, lookupTag: nil)
    }

    /// Every live visitor pass.
    public func liveVisitorPasses(now: Date) async throws -> [IssuedVisitorPass] {
        try await liveVisitorPasses(now: now, lookupTag: nil)
    }
}
