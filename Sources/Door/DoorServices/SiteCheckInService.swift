import Crypto
import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadStorage
import KioskPadThreads
import Logging
import ServiceLifecycle
import Synchronization

/// An adopted door's check-in (`POST /v1/check-in`): at start, then as often as the site says
/// (`server.check_in_seconds`), it tells the site which settings version it runs (and one it
/// refused, why) and asks whether a rotation of its secret or new settings wait.
///
/// A rotation: it opens the next secret with the current one (``SecretRotationSeal``), stores
/// it in `secretFile` (mode 600, fsynced, on the door's file thread), signs every request with
/// it from then on and checks in again at once, which tells the site the rotation is done. The
/// site accepts both secrets until then, so no attempt is refused on the way.
///
/// Replica keys: the door says which it trusts; while the site rotates its replica key it is
/// told of the next one, signed by the one it trusts (``ReplicaKeyStatement``), and trusts both
/// (stored in `site.json`, fsynced), until the site says the next is the only one, signed by
/// that key. The ``ReplicaTrust`` is shared with the door's offline replica, if it keeps one.
///
/// Settings: checked against the replica keys the door trusts (a signature that does not
/// check is ignored and logged), then handed to the ``SiteSettingsApplying``;
/// settings the running door cannot take in place are stored, and once the door is idle the
/// service asks for a restart in place (``RestartRequest``) and returns, which stops the
/// door's services in order (relay off first) for `kioskpad run` to execute itself again.
///
/// The push channel, when the door holds one, wakes it at once (``CheckInNudge``): the site
/// says so when its settings version passes the newest the door knows, or a rotation of the
/// door's secret waits. Check-ins so woken are at least ``leastGap`` apart.
///
/// A failure is logged (never a secret) and the door asks again at the next interval.
public final class SiteCheckInService: Service, Sendable {
    let verifier: HTTPVerifier
    let terminalID: String
    let secretFile: String
    /// `site.json`, where the replica keys are kept.
    let siteFile: String
    let settings: (any SiteSettingsApplying)?
    let trust: ReplicaTrust?
    /// Told each rotation (the secret replaced, the next one) after the verifier: the replica
    /// sync client signs with it too, and the events poster when it signed with the old one.
    let secretReplaced: @Sendable (_ old: WebhookSecret, _ next: WebhookSecret) -> Void
    let restart: RestartRequest
    let logger: Logger
    /// Shared with the push channel (a new one, never nudged, when the door holds none).
    let nudge: CheckInNudge
    private let refused = Mutex<(version: Int64, reason: String)?>(nil)
    /// Settings were stored that the running door cannot take in place.
    private let needsRestart = Mutex(false)
    /// Before the site has said: once a minute; after a failure: the last interval the site gave.
    static let firstInterval: Duration = .seconds(60)
    /// The least time between the starts of two check-ins the push channel woke.
    static let leastGap: Duration = .seconds(1)
    /// The newest settings version the site offered (what the push channel reports, with the
    /// versions run and refused, so an offer the door cannot take is not offered again and again).
    private let offered = Mutex<Int64>(0)

    public init(
        verifier: HTTPVerifier, terminalID: String, secretFile: String, siteFile: String, settings: (any SiteSettingsApplying)? = nil,
        trust: ReplicaTrust? = nil, secretReplaced: @escaping @Sendable (WebhookSecret, WebhookSecret) -> Void = { _, _ in },
        restart: RestartRequest = RestartRequest(), nudge: CheckInNudge = CheckInNudge(),
        logger: Logger
    ) {
        self.nudge = nudge
        self.secretReplaced = secretReplaced
        self.verifier = verifier
        self.terminalID = terminalID
        self.secretFile = secretFile
        self.siteFile = siteFile
        self.settings = settings
        self.trust = trust
        self.restart = restart
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown { [self] in
            var interval = Self.firstInterval
            while !Task.isCancelled {
                let started = ContinuousClock.now
                if let next = await checkIn() { interval = next }
                nudge.checkedIn(knowing: knownSettings)
                if needsRestart.withLock({ $0 }) {
                    // Only once idle, and not when the door is being stopped meanwhile.
                    if await waitUntilIdle() { restart.request() }
                    return
                }
                let nudged = await nudge.wait(upTo: interval)
                let gap = ContinuousClock.now - started
                if nudged, gap < Self.leastGap { try? await Task.sleep(for: Self.leastGap - gap) }
            }
        }
    }

    /// True once the door is idle; false when the service was cancelled first (the door is stopping).
    private func waitUntilIdle() async -> Bool {
        guard let settings else { return false }
        while await !settings.idle() {
            guard !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(250))
        }
        guard !Task.isCancelled else { return false }
        logger.notice("starting again in place to run the site's settings")
        return true
    }

    /// The newest settings version this door knows of: run, refused or offered.
    private var knownSettings: Int64 {
        max(report.running, report.refused?.version ?? 0, offered.withLock { $0 })
    }

    /// What the check-in reports of the door's settings.
    private var report: CheckInReport {
        CheckInReport(running: settings?.runningVersion ?? 0, refused: refused.withLock { $0 }, replicaKeys: trust?.all.map(\.description) ?? [])
    }

    /// One check-in, and the rotation and settings it carries if any; the interval the site
    /// gave, nil when it gave none (unreachable, refused).
    func checkIn() async -> Duration? {
        do {
            let answer = try await verifier.checkIn(terminalID: terminalID, report: report)
            var reportAgain = false
            if let signed = answer.settings, let version = Self.version(offeredIn: signed) { offered.withLock { $0 = max($0, version) } }
            if let said = answer.replicaKey { reportAgain = try await take(said.statement, signature: said.signature) }
            if let signed = answer.settings, await take(signed) { reportAgain = true }
            if reportAgain {
                // Tell the site at once what became of them.
                _ = try await verifier.checkIn(terminalID: terminalID, report: report)
            }
            guard let sealed = answer.sealedRotation, let current = verifier.secret else { return answer.interval }
            let next = try SecretRotationSeal.open(sealed, current: current, terminalID: terminalID)
            let path = secretFile
            try await WorkThreads.files.run { try DurableFile.replace(path: path, contents: Array((next.text + "\n").utf8), mode: 0o600) }
            verifier.replaceSecret(next)
            secretReplaced(current, next)
            logger.notice("the site rotated this door's secret; requests are signed with the new one", metadata: ["file": "\(path)"])
            // Signed with the new secret: the site ends the old one.
            return try await verifier.checkIn(terminalID: terminalID, report: report).interval
        } catch {
            logger.warning("check-in with the site failed; the door asks again later", metadata: ["reason": "\(error)"])
            return nil
        }
    }

    /// What the site said of its replica keys: taken when its signature checks, stored in
    /// `site.json`; true when the door trusts other keys now (to report at once).
    private func take(_ statement: ReplicaKeyStatement, signature: String) async throws -> Bool {
        guard let trust else { return false }
        guard let keys = trust.take(statement, signature: signature, terminalID: terminalID) else {
            if !trust.all.contains(statement.key) {
                logger.warning("what the site said of its replica key does not carry a signature this door trusts; ignored")
            }
            return false
        }
        let path = siteFile
        try await WorkThreads.files.run { try SiteFileKeys.store(keys, in: path) }
        switch statement {
        case .next: logger.notice("the site is rotating its replica key; this door trusts the next one as well", metadata: ["key": "\(statement.key)"])
        case .current: logger.notice("the site's rotation of its replica key ended; this door trusts only the new one", metadata: ["key": "\(statement.key)"])
        }
        return true
    }

    /// The version an offer of settings names, read without its signature: it only keeps the
    /// push channel from waking the door for that version again.
    static func version(offeredIn signed: CheckInAnswer.SignedSettings) -> Int64? {
        guard let payload = Data(base64Encoded: signed.payload),
            let object = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any]
        else { return nil }
        return (object["version"] as? NSNumber)?.int64Value
    }

    /// Settings from the site: checked against the replica keys, then applied or refused.
    /// True when there is something new to report.
    private func take(_ signed: CheckInAnswer.SignedSettings) async -> Bool {
        guard let settings, let trust else { return false }
        guard let payload = Data(base64Encoded: signed.payload), let signature = Data(base64Encoded: signed.signature),
            trust.isValidSignature(signature, for: payload), let text = String(data: payload, encoding: .utf8)
        else {
            logger.warning("settings from the site do not carry the site's signature; ignored")
            return false
        }
        switch await settings.apply(payload: text) {
        case .running(let version):
            refused.withLock { $0 = nil }
            logger.notice("running the site's settings", metadata: ["version": "\(version)"])
        case .restartNeeded(let version):
            refused.withLock { $0 = nil }
            logger.notice("the site's settings need the door to start again; it will once idle", metadata: ["version": "\(version)"])
            needsRestart.withLock { $0 = true }
            return false
        case .refused(let version, let reason):
            refused.withLock { $0 = (version, reason) }
            logger.warning("refused the site's settings; the door keeps what it runs", metadata: ["version": "\(version)", "reason": "\(reason)"])
        }
        return true
    }
}

/// The replica keys in an adopted door's `site.json` (`replica_public_key`, and
/// `replica_public_key_next` during a rotation), rewritten in place with its other
/// properties kept (mode 600, fsynced).
enum SiteFileKeys {
    static func store(_ keys: (current: ReplicaPublicKey, next: ReplicaPublicKey?), in path: String) throws {
        var object: [String: Any] = [:]
        if let data = FileManager.default.contents(atPath: path), let stored = try JSONSerialization.jsonObject(with: data) as? [String: Any] {
            object = stored
        }
        object["replica_public_key"] = keys.current.description
        object["replica_public_key_next"] = keys.next?.description
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try DurableFile.replace(path: path, contents: Array(data), mode: 0o600)
    }
}
