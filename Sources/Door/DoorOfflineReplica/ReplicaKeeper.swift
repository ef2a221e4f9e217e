import Foundation
import KioskPadAccess
import KioskPadCore
import KioskPadStorage
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A door's credential replica: read from `state_dir` at start (both signatures checked),
/// replaced by every newer one a sync brings (atomically, fsynced, mode 0600, owned by the
/// owner of `state_dir`), and the judge of whether the door may decide offline now: only
/// with a replica confirmed within `max_age_h`, by a time it can trust (the wall clock if
/// `clock.trust` says it counts, else the last confirmation's `issued_at` plus the boot
/// clock since it arrived, on the same boot).
public final class ReplicaKeeper: Sendable {
    /// What the keeper needs to know; the clocks are injectable for tests.
    public struct Settings: Sendable {
        public var terminalID: String
        /// The keys a replica may be signed with: the one given, and a next one an adopted
        /// door's site announced at a check-in (shared with that check-in, changed in place).
        public var trust: ReplicaTrust
        /// The replica file (`state_dir/replica.json`).
        public var path: String
        /// `replica-confirmation.json` beside it.
        public var confirmationPath: String { (path as NSString).deletingLastPathComponent + "/replica-confirmation.json" }
        /// `replica-highest` beside it: the highest version this door ever accepted, kept
        /// apart from the replica, so an older replica file put back is refused.
        public var highestPath: String { (path as NSString).deletingLastPathComponent + "/replica-highest" }
        public var maxAge: Duration
        /// Whether the wall clock counts (`clock.trust`).
        public var wallClockTrusted: @Sendable () -> Bool
        public var wallClock: @Sendable () -> Date
        public var bootClock: @Sendable () -> BootInstant?

        public init(
            terminalID: String, trust: ReplicaTrust, path: String, maxAge: Duration,
            wallClockTrusted: @escaping @Sendable () -> Bool, wallClock: @escaping @Sendable () -> Date = Date.init,
            bootClock: @escaping @Sendable () -> BootInstant? = BootInstant.now
        ) {
            self.terminalID = terminalID
            self.trust = trust
            self.path = path
            self.maxAge = maxAge
            self.wallClockTrusted = wallClockTrusted
            self.wallClock = wallClock
            self.bootClock = bootClock
        }
    }

    /// What a sync did.
    public struct SyncSummary: Sendable, Equatable {
        public let version: Int64
        public let users: Int
        /// False when the verifier confirmed the version the door held.
        public let changed: Bool
        /// The users a delta changed (nil: the whole replica came, or a confirmation).
        public var deltaUsers: Int? = nil
    }

    struct State {
        var held: HeldReplica?
        /// Decides for ``held`` (built once per version).
        var verifier: LocalVerifier?
        /// Why there is no replica to decide from (nil while there is one).
        var problem: String?
        /// Set by an offline decision, cleared by the verifier's next answer.
        var decidingOffline = false
        /// When the confirmation on disk was issued (nil: none written yet).
        var confirmationWritten: Date?
    }

    /// An unchanged sync (once a minute by default) rewrites `replica-confirmation.json` only
    /// when the one on disk was issued this long before, so an idle door does not write to
    /// its card every minute (issue 47): an hour, or a quarter of `max_age_h` if that is less.
    /// After a restart the replica's age then counts from the older confirmation on disk:
    /// offline decisions end up to this much sooner, never later, and the first sync
    /// renews it.
    public static func confirmationWriteInterval(maxAge: Duration) -> Duration {
        min(.seconds(3600), maxAge / 4)
    }

    public let settings: Settings
    private let state: Mutex<State>
    private let clock: TrustedClock

    /// Reads the replica file, if there is one; a file that cannot be used is kept aside as
    /// ``problem`` (the next sync replaces it).
    public init(settings: Settings) {
        self.settings = settings
        let clock = TrustedClock(settings: settings)
        self.clock = clock
        var initial = State()
        if let bytes = FileManager.default.contents(atPath: settings.path) {
            do {
                let held = try HeldReplica(
                    fileContents: Array(bytes), confirmationBytes: FileManager.default.contents(atPath: settings.confirmationPath).map(Array.init),
                    trust: settings.trust, terminalID: settings.terminalID)
                let highest = ReplicaKeeper.highestAccepted(settings)
                guard held.version >= highest else {
                    throw ReplicaError(
                        "version \(held.version) is older than version \(highest) this door accepted before (\(settings.highestPath)); "
                            + "an older replica put back is never used; the next sync brings the current one")
                }
                initial.verifier = try ReplicaKeeper.verifier(for: held.replica, clock: clock, settings: settings)
                initial.held = held
                initial.confirmationWritten = held.confirmedAt
                clock.confirm(at: held.confirmedAt, anchor: held.anchor)
            } catch {
                initial.problem = "\(settings.path) refused: \(error)"
            }
        } else {
            initial.problem = "no replica yet in \(settings.path) (it comes with the first sync; `kioskpad credentials sync` fetches one now)"
        }
        state = Mutex(initial)
    }

    /// The version held (0 for none), as a sync asks with.
    public var version: Int64 { state.withLock { $0.held?.version ?? 0 } }

    public var held: HeldReplica? { state.withLock { $0.held } }

    /// Takes what `/v1/credentials` answered, received at `receivedAt` on the boot clock:
    /// checks the signature, the terminal and the version (never lower than the one held; a
    /// delta only from the one held; a confirmation only of the one held, and newer than the
    /// last), writes the file, and decides from it from now on.
    @discardableResult
    public func accept(_ signed: SignedReplica, receivedAt: BootInstant?) throws -> SyncSummary {
        let message = try settings.trust.open(signed)
        guard message.terminalID == settings.terminalID else {
            throw ReplicaError("the verifier sent the replica of terminal '\(message.terminalID)' to '\(settings.terminalID)'")
        }
        let current = held
        let next: HeldReplica
        let verifier: LocalVerifier?
        switch message {
        case .replica(let replica):
            let highest = max(current?.version ?? 0, ReplicaKeeper.highestAccepted(settings))
            if replica.version < highest {
                throw ReplicaError(
                    "replica version \(replica.version) is older than the version \(highest) this door accepted; refused (an old replica is never taken back)")
            }
            verifier = try ReplicaKeeper.verifier(for: replica, clock: clock, settings: settings)
            next = HeldReplica(signed: signed, replica: replica, confirmation: nil, confirmedAt: replica.issuedAt, anchor: receivedAt)
        case .delta(let delta):
            guard let current else { throw ReplicaError("a delta from version \(delta.fromVersion), but the door holds no replica") }
            let replica = try current.replica.applying(delta)
            verifier = try ReplicaKeeper.verifier(for: replica, clock: clock, settings: settings)
            next = HeldReplica(
                signed: current.signed, deltas: current.deltas + [signed], replica: replica, confirmation: nil, confirmedAt: delta.issuedAt,
                anchor: receivedAt)
        case .confirmation(_, let version, let issuedAt):
            guard let current, current.version == version else {
                throw ReplicaError("a confirmation of version \(version), but the door holds \(current.map { "version \($0.version)" } ?? "no replica")")
            }
            guard issuedAt > current.confirmedAt else {
                throw ReplicaError("a confirmation issued \(issuedAt), not after the last one (\(current.confirmedAt)); refused as a replay")
            }
            verifier = nil
            next = HeldReplica(
                signed: current.signed, deltas: current.deltas, replica: current.replica, confirmation: signed, confirmedAt: issuedAt, anchor: receivedAt)
        }
        let owner = ReplicaKeeper.owner(ofDirectoryOf: settings.path)
        if verifier != nil {
            try DurableFile.replace(path: settings.path, contents: try next.replicaFileContents(), mode: 0o600, owner: owner)
        }
        // After the replica itself (a power cut between leaves the mark behind, never ahead);
        // also on a confirmation, for a door that held its replica before the mark existed.
        if next.version > ReplicaKeeper.highestAccepted(settings) {
            try DurableFile.replace(path: settings.highestPath, contents: Array("\(next.version)\n".utf8), mode: 0o600, owner: owner)
        }
        // After an unchanged sync the confirmation is written only now and then, and not
        // fsynced: one lost to a power cut, left empty, or not written is ignored at the next
        // start, and the replica's age then counts from an older issued_at (and without a
        // boot anchor until the next sync): offline decisions end sooner, never later.
        let written = state.withLock { $0.confirmationWritten }
        let due = written.map { next.confirmedAt.timeIntervalSince($0) >= Self.confirmationWriteInterval(maxAge: settings.maxAge).timeInterval } ?? true
        let writing = verifier != nil || due
        if writing {
            try DurableFile.replace(
                path: settings.confirmationPath, contents: try next.confirmationFileContents(), mode: 0o600, owner: owner, flush: verifier != nil)
        }
        clock.confirm(at: next.confirmedAt, anchor: next.anchor)
        state.withLock { state in
            state.held = next
            if let verifier { state.verifier = verifier }
            if writing { state.confirmationWritten = next.confirmedAt }
            state.problem = nil
        }
        var summary = SyncSummary(version: next.version, users: next.userCount, changed: verifier != nil)
        if case .delta(let delta) = message { summary.deltaUsers = delta.users.count }
        return summary
    }

    /// The site retired this door: the replica and its confirmation are removed (durably,
    /// blocking: the caller runs it on the file thread) and nothing is decided offline from
    /// now on. The anti-rollback mark stays, so the removed replica is never taken back; a
    /// door added again under its name gets a newer one at its next sync.
    public func retire() throws {
        try DurableFile.remove(path: settings.path)
        try DurableFile.remove(path: settings.confirmationPath)
        state.withLock { state in
            state.held = nil
            state.verifier = nil
            state.confirmationWritten = nil
            state.problem = "the site retired this door: it decides offline no more (its replica was removed)"
        }
    }

    /// Now, by a clock the door can trust: the wall clock when it counts, else the last
    /// confirmation's `issued_at` plus the boot time since it arrived; nil when neither.
    public func trustedNow() -> Date? {
        clock.now()
    }

    /// How long ago the replica was last confirmed, by the trusted time (nil: no replica or no trusted time).
    public func age() -> Duration? {
        guard let held, let now = trustedNow() else { return nil }
        return .milliseconds(Int64((now.timeIntervalSince(held.confirmedAt) * 1000).rounded()))
    }

    /// The verifier for an offline decision and the version it holds, or why there is none.
    public func offlineVerifier() -> Result<(verifier: LocalVerifier, version: Int64), ReplicaError> {
        let (held, verifier, problem) = state.withLock { ($0.held, $0.verifier, $0.problem) }
        guard let held, let verifier else { return .failure(ReplicaError(problem ?? "no replica")) }
        guard let age = age() else {
            let why =
                settings.bootClock() == nil
                ? "this boot's clock or id cannot be read (/proc/sys/kernel/random/boot_id, or KIOSKPAD_BOOT_ID as the unit sets it)"
                : "the door has not synced since it booted"
            return .failure(ReplicaError("no trusted time: the wall clock is not trusted (clock.trust) and \(why)"))
        }
        guard age <= settings.maxAge else {
            return .failure(
                ReplicaError(
                    "replica v\(held.version) was confirmed \(ReplicaKeeper.describe(age)) ago, longer than max_age_h (\(settings.maxAge.wholeSeconds / 3600) h)"
                ))
        }
        if let check = held.replica.modeCheck, age > .seconds(check) {
            return .failure(
                ReplicaError(
                    "replica v\(held.version) was confirmed \(ReplicaKeeper.describe(age)) ago, and the site has doors decide offline only within \(check) s of a sync (a lockdown may have been set since)"
                ))
        }
        return .success((verifier, held.version))
    }

    /// Notes whether the last attempt was decided offline (for `/healthz`).
    public func noteDecidedOffline(_ offline: Bool) {
        state.withLock { $0.decidingOffline = offline }
    }

    /// `/healthz`'s line while the door decides offline; nil otherwise.
    public func healthLine() -> String? {
        guard state.withLock({ $0.decidingOffline }), let held else { return nil }
        return "verifier offline: deciding from replica v\(held.version), confirmed \(age().map(ReplicaKeeper.describe) ?? "an unknown time") ago"
    }

    /// Why the door cannot decide offline now (nil: it can).
    public func problem() -> String? {
        switch offlineVerifier() {
        case .success: return nil
        case .failure(let error): return error.description
        }
    }

    /// `90 s`, `12 min`, `3.5 h`.
    public static func describe(_ duration: Duration) -> String {
        let seconds = Double(duration.wholeSeconds)
        if seconds < 120 { return "\(Int(seconds)) s" }
        if seconds < 7200 { return "\(Int(seconds / 60)) min" }
        return String(format: "%.1f h", seconds / 3600)
    }

    /// A local verifier deciding from `replica`'s hashes and rules, in its time zone, with
    /// the keeper's trusted time.
    static func verifier(for replica: CredentialReplica, clock: TrustedClock, settings: Settings) throws -> LocalVerifier {
        var rules: [String: AccessRule] = [:]
        for (user, text) in replica.rules {
            do {
                rules[user] = try AccessRule(text: text)
            } catch {
                throw ReplicaError("the rule of '\(user)' in replica v\(replica.version): \(error)")
            }
        }
        var holidays: [Holiday] = []
        for (day, rule) in replica.holidays {
            do {
                holidays.append(try Holiday(day: day, words: rule.split(separator: " ")))
            } catch {
                throw ReplicaError("the holiday \(day) in replica v\(replica.version): \(error)")
            }
        }
        var site = SiteRules(
            timeZone: replica.timeZone, schedules: replica.schedules, rules: rules, holidays: holidays, modes: DoorModes(site: replica.mode))
        if let rule = replica.cardAndPIN { site.cardAndPIN[replica.terminalID] = rule }
        do {
            _ = try CompiledSiteRules(site)
        } catch {
            throw ReplicaError("the schedules or zone of replica v\(replica.version): \(error)")
        }
        // Tagged entries are looked up by their cut tag (one HMAC, then the few hashes in
        // that bucket); entries without a tag are checked in full on every attempt.
        let tagKey = replica.tagKey.map(ReplicaTagKey.init(raw:))
        let bits = replica.tagBits
        let users = replica.entries.map { entry in
            UserRecord(
                name: entry.user, kind: entry.kind, pinHash: entry.hash, totpSecret: nil,
                lookupTag: tagKey == nil ? nil : entry.tag.map { ReplicaTagKey.keyID + "." + $0 })
        }
        var lookup: (@Sendable (SecretDigits, AttemptKind) -> (tag: String, keyID: String))?
        if let tagKey {
            lookup = { value, kind in tagKey.lookup(value, kind: kind, bits: bits) }
        }
        let wall = settings.wallClock
        return LocalVerifier(
            users: UsersFile(users: users, site: site), clock: { clock.now() ?? wall() }, clockTrusted: { clock.now() != nil }, lookup: lookup)
    }

    /// The uid and gid that own `path`'s directory: a replica fetched by root with
    /// `kioskpad credentials sync` stays readable by the service user who owns `state_dir`.
    /// The highest version this door ever accepted (`replica-highest`), 0 when none is recorded.
    static func highestAccepted(_ settings: Settings) -> Int64 {
        guard let bytes = FileManager.default.contents(atPath: settings.highestPath) else { return 0 }
        return Int64(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    static func owner(ofDirectoryOf path: String) -> (uid: uid_t, gid: gid_t)? {
        var info = stat()
        guard stat((path as NSString).deletingLastPathComponent, &info) == 0 else { return nil }
        return (info.st_uid, info.st_gid)
    }
}

/// The door's trusted time: the wall clock when it counts, else the last confirmation's
/// `issued_at` plus the boot clock since it arrived (same boot only). Shared by the keeper
/// and the rules of its local verifier.
final class TrustedClock: Sendable {
    private let settings: ReplicaKeeper.Settings
    private let confirmed = Mutex<(at: Date, anchor: BootInstant?)?>(nil)

    init(settings: ReplicaKeeper.Settings) {
        self.settings = settings
    }

    func confirm(at date: Date, anchor: BootInstant?) {
        confirmed.withLock { $0 = (date, anchor) }
    }

    func now() -> Date? {
        if settings.wallClockTrusted() { return settings.wallClock() }
        guard let (at, anchor) = confirmed.withLock({ $0 }), let anchor, let now = settings.bootClock(),
            let elapsed = now.seconds(since: anchor)
        else { return nil }
        return at.addingTimeInterval(elapsed)
    }
}
