import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage

/// A store refused a new code because a live one-time code, enrolment code or visitor pass
/// has the same lookup tag (the same digits): the issuer draws other digits. Thrown only
/// for a code with a tag; never shown to anyone.
public struct CodeTagInUse: Error, Sendable {
    public init() {}
}

/// The one way a one-time or enrolment code is issued, whatever it came through (the command
/// line, the console, the API): drawn from the system's generator, hashed on the
/// ``HashingPool``'s console lane (never on a cooperative thread), tagged with the site's
/// lookup key when it has one (so a code typed at a door is checked against one row, not every
/// live code and pass), and stored with its one audit record. The code is returned once and
/// never stored, logged or audited.
public struct CodeIssuing: Sendable {
    let administration: any VerifierAdministration
    let changes: AdministratorChanges
    /// Digits of a code (`server.code_length`).
    let codeLength: Int
    let lookupKey: LookupKey?

    /// How many times digits already in use are drawn again before the issue fails (each
    /// draw collides with odds of live codes / 10^digits: never twice in practice).
    static let draws = 5

    public init(administration: any VerifierAdministration, changes: AdministratorChanges, codeLength: Int, lookupKey: LookupKey?) {
        self.administration = administration
        self.changes = changes
        self.codeLength = codeLength
        self.lookupKey = lookupKey
    }

    /// A one-time code issued: the code (to show once) and the notes on its door.
    public struct Issued: Sendable {
        public let code: String
        /// A door the code is limited to that the site has not heard of (``ChangeNote``).
        public let notes: [ChangeNote]
    }

    /// Issues a one-time code for `user` valid until `expires`, at `door` only (nil: any door
    /// they may open); the code, and a note when the site has not heard of `door`.
    public func issue(user: String, door: String?, expires: Date) async throws -> Issued {
        try await DoorScopes.requireUser(changes.administrator, user, administration: administration)
        let fields = [("user", user), ("door", door ?? "any"), ("expires", UTCTimestamp.rfc3339(expires, milliseconds: true))]
        let code = try await changes.apply(.codeIssue, fields) {
            try await CodeIssuing.draw(length: codeLength, lookupKey: lookupKey) { hash, tag in
                try await administration.issueCode(user: user, hash: hash, lookupTag: tag, expires: expires, door: door)
            }.code
        }
        let notes = try await KnownDoors.notes(naming: door.map { [$0] } ?? [], store: changes.store, administration: administration)
        return Issued(code: code, notes: notes)
    }

    /// Issues an enrolment code (a PIN chosen at a door) for `user`, valid until `expires`;
    /// the code (at least the shortest entry a door takes).
    public func issueEnrolment(user: String, expires: Date) async throws -> String {
        try await DoorScopes.requireUser(changes.administrator, user, administration: administration)
        return try await changes.apply(.enrolCodeIssue, [("user", user), ("expires", UTCTimestamp.rfc3339(expires, milliseconds: true))]) {
            try await CodeIssuing.draw(length: max(codeLength, EntryOptions.lengthRange.lowerBound), lookupKey: lookupKey) { hash, tag in
                try await administration.issueEnrolmentCode(user: user, hash: hash, lookupTag: tag, expires: expires)
            }.code
        }
    }

    /// Draws `length` digits, hashes and tags them, and hands hash and tag to `store` until it
    /// keeps them (``CodeTagInUse``: other digits); what `store` returned and the code as text.
    static func draw<R>(
        length: Int, lookupKey: LookupKey?, _ store: (PINHash, String?) async throws -> R
    ) async throws -> (result: R, code: String) {
        var draw = 1
        while true {
            let code = OneTimeCode.make(length: length)
            let hash = try await HashingPool.shared.makeHash(code, iterations: OneTimeCode.hashIterations, lane: .console)
            do {
                let result = try await store(hash, lookupKey?.codeTag(code))
                return (result, code.withASCIIBytes { String(decoding: $0, as: UTF8.self) })
            } catch is CodeTagInUse where draw < draws {
                draw += 1
            } catch is CodeTagInUse {
                throw UserEditError(description: "code: \(draws) codes drawn were each in use already; issue it again")
            }
        }
    }
}
