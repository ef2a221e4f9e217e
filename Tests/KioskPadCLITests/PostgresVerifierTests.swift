import Foundation
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteSQL
import TestPeers
import Testing

/// `kioskpad verifier` with `server.store: postgres`, against a real PostgreSQL started for
/// each test (initdb into a temporary directory, a loopback port, SCRAM password): two
/// `verifier serve` processes on two ports share one database, as behind a reverse proxy.
@Suite("Reference verifier on PostgreSQL", .serialized, .heavy)
struct PostgresVerifierTests {
    /// A database, a secret and a verifier config for it; users added through the CLI.
    final class Site: AsyncClosing {
        let database: PostgresTestServer
        let directory: URL
        var config: String { directory.appendingPathComponent("verifier.yaml").path }
        var instances: [VerifierProcess] = []

        /// `timeoutMilliseconds` (`postgres.timeout_ms`) is 5 s by default, not the product's
        /// 2 s: beside the rest of the suite on 2 cores, a 1.5 s deadline once passed (503) for
        /// a request the database would have answered. An outage waits it out on every request.
        init(extraSettings: String = "", timeoutMilliseconds: Int = 5000) async throws {
            database = try await onOwnThread { try PostgresTestServer() }
            directory = try await VerifierProcess.prepare(pin: "0000")
            try writeConfig(extraSettings: extraSettings, timeoutMilliseconds: timeoutMilliseconds)
        }

        /// The site's config, with `postgres.timeout_ms` (the instances started after read it).
        func writeConfig(extraSettings: String = "", timeoutMilliseconds: Int) throws {
            try """
            server:
              listen: 127.0.0.1:0
              secret_file: secret
              store: postgres
              postgres:
                url: \(database.url)
                password_file: \(database.passwordFile)
                tls: disable
                timeout_ms: \(timeoutMilliseconds)

            """.appending(extraSettings).write(toFile: config, atomically: true, encoding: .utf8)
        }

        func cli(_ arguments: [String], stdin: String = "") async throws -> CLI.Result {
            try await CLI.run(arguments + ["--config", config], stdin: stdin)
        }

        func addUser(_ name: String, pin: String) async throws {
            let added = try await cli(["verifier", "user", "add", name, "--iterations", "1000"], stdin: pin + "\n")
            #expect(added.status == 0, "\(added.stderr)")
        }

        func startInstances(_ count: Int) async throws {
            for _ in 0..<count { instances.append(try await VerifierProcess(directory: directory)) }
        }

        var secret: WebhookSecret {
            get throws { try WebhookSecret(parsing: String(contentsOfFile: directory.appendingPathComponent("secret").path, encoding: .utf8)) }
        }

        func close() async {
            for instance in instances { instance.stop() }
            let (database, directory) = (database, directory)
            _ = try? await onOwnThread {
                database.destroy()
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }

    /// A signed request for `value` from `terminal`: its body and headers, to send as often as wanted.
    struct SignedRequest: Sendable {
        let body: [UInt8]
        let headers: [(name: String, value: String)]
        let id: String

        /// `id`: the `webhook-id`; a new one when nil.
        init(terminal: String, kind: AttemptKind = .pin, value: String, secret: WebhookSecret, id: String? = nil) {
            let bytes = VerificationRequestBody.encode(VerificationAttempt(terminalID: terminal, kind: kind, value: SecretDigits(ascii: value)!))
            body = bytes
            self.id = id ?? "msg_\(UUID().uuidString)"
            headers = WebhookSignature.headers(id: self.id, body: bytes, secret: secret)
        }

        /// Posts it to `port`; returns the status and the body.
        func send(to port: Int) async throws -> (status: Int, body: String) {
            let answer = try await LoopbackHTTP.post(port: port, path: "/verify", body: body, headers: headers)
            return (answer.status, answer.body)
        }
    }

    @Test func aServerWithoutTLSIsNamedAtOnceNotWaitedFor() async throws {
        let site = try await Site(timeoutMilliseconds: 30_000)
        try await site.closing {
            let text = try String(contentsOfFile: site.config, encoding: .utf8).replacingOccurrences(of: "tls: disable", with: "tls: verify-full")
            try text.write(toFile: site.config, atomically: true, encoding: .utf8)
            // With a 30 s timeout, only an answer that does not wait for it says what is wrong.
            let listed = try await site.cli(["verifier", "user", "list"])
            #expect(listed.status == 2, "\(listed.stdout)\(listed.stderr)")  // a config that does not fit the server
            #expect(listed.stderr.contains("server.postgres.tls: the server at 127.0.0.1:"), "\(listed.stderr)")
            #expect(listed.stderr.contains("does not offer TLS") && !listed.stderr.contains("did not answer"), "\(listed.stderr)")
        }
    }

    /// `verifier migrate` takes the command's minute, not a door's `timeout_ms`: a migration
    /// kept waiting 1.5 s (another session holds its lock) under `timeout_ms: 100` completes
    /// (it failed "did not answer within 0.1 seconds" before, as the fault suite's guest found).
    @Test func aMigrationWaitsLongerThanADoorsTimeout() async throws {
        let site = try await Site(timeoutMilliseconds: 100)
        try await site.closing {
            let database = site.database
            let holder = Task { try await database.query("BEGIN; SELECT pg_advisory_xact_lock(7305001); SELECT pg_sleep(1.5); COMMIT;") }
            try await Task.sleep(for: .milliseconds(300))
            let migrated = try await site.cli(["verifier", "migrate"])
            _ = try await holder.value
            #expect(migrated.status == 0 && migrated.stdout.contains("at version \(SiteMigrations.latestVersion)"), "\(migrated.stdout) \(migrated.stderr)")
        }
    }

    @Test func userCommandsRoundTripAndMigrationsTwiceChangeNothing() async throws {
        let site = try await Site()
        try await site.closing {
            let first = try await site.cli(["verifier", "migrate"])
            #expect(
                first.status == 0
                    && first.stdout.contains(
                        "at version \(SiteMigrations.latestVersion) (applied \((1...SiteMigrations.latestVersion).map(String.init).joined(separator: ", ")))"),
                "\(first.stdout) \(first.stderr)")
            let second = try await site.cli(["verifier", "migrate"])
            #expect(second.status == 0 && second.stdout.contains("at version \(SiteMigrations.latestVersion) (already)"), "\(second.stdout) \(second.stderr)")
            #expect(try await site.database.query("SELECT count(*) FROM kioskpad_schema_migrations") == "\(SiteMigrations.latestVersion)\n")

            try await site.addUser("dana", pin: "4711")
            let twice = try await site.cli(["verifier", "user", "add", "dana", "--iterations", "1000"], stdin: "1234\n")
            #expect(twice.status != 0 && twice.stderr.contains("user 'dana' is already in postgres://kioskpad@127.0.0.1"))
            #expect(try await site.cli(["verifier", "user", "set-pin", "dana", "--iterations", "1000"], stdin: "2468\n").status == 0)
            #expect(try await site.cli(["verifier", "user", "set-duress", "dana", "--iterations", "1000"], stdin: "9999\n").status == 0)
            #expect(try await site.cli(["verifier", "user", "add-card", "dana", "--iterations", "1000"], stdin: "789888\n").status == 0)
            let uri = try await site.cli(["verifier", "user", "totp", "dana"])
            #expect(uri.status == 0 && uri.stdout.hasPrefix("otpauth://totp/"))
            try await site.addUser("eve", pin: "1357")
            #expect(
                try await site.cli(["verifier", "user", "list"]).stdout
                    == "dana pin,totp,duress,cards=1 doors=all schedule=always valid=always enabled\neve pin doors=all schedule=always valid=always enabled\n")

            let wrongCard = try await site.cli(["verifier", "user", "remove-card", "dana"], stdin: "111111\n")
            #expect(wrongCard.status != 0 && wrongCard.stderr.contains("no card with that number"))
            #expect(try await site.cli(["verifier", "user", "remove-card", "dana"], stdin: "789888\n").status == 0)
            let removed = try await site.cli(["verifier", "user", "remove", "dana"])
            #expect(removed.status == 0 && removed.stdout.contains("(2 entries)"), "\(removed.stdout)")
            #expect(try await site.cli(["verifier", "user", "list"]).stdout == "eve pin doors=all schedule=always valid=always enabled\n")
            let again = try await site.cli(["verifier", "user", "remove", "dana"])
            #expect(again.status != 0 && again.stderr.contains("no user 'dana'"))
            // Never a PIN or a TOTP secret in clear in the database.
            let stored = try await site.database.query("SELECT name || ' ' || hash || ' ' || coalesce(totp_secret, '-') FROM kioskpad_users")
            #expect(stored.hasPrefix("eve $pbkdf2-sha256$") && !stored.contains("1357"))
        }
    }

    /// A door's retry whose answer was lost (the same request, often to the other instance)
    /// gets the answer the attempt got; another request with the same `webhook-id` is a replay.
    @Test func anAttemptSentAgainIsAnsweredAsDecidedAndItsIDIsRefusedToAnother() async throws {
        let site = try await Site()
        try await site.closing {
            try await site.addUser("dana", pin: "4711")
            try await site.startInstances(2)
            let (a, b) = (site.instances[0].port, site.instances[1].port)
            let request = SignedRequest(terminal: "door-1", value: "4711", secret: try site.secret)
            let first = try await request.send(to: a)
            #expect(first.status == 200 && first.body.contains("\"decision\":\"granted\""), "\(first)")
            let again = try await request.send(to: b)
            #expect(again.status == 200 && again.body == first.body, "\(again)")
            #expect(try await request.send(to: a).body == first.body)
            // Another attempt under that id is a replay.
            let other = SignedRequest(terminal: "door-1", value: "4711", secret: try site.secret, id: request.id)
            #expect(try await other.send(to: b).status == 409)
            // Decided once: one grant audited, the repeats and the refused replay audited by the
            // instance that answered them, never the PIN.
            let audit = try await site.database.query("SELECT record::text FROM kioskpad_audit ORDER BY id")
            let decisions = audit.split(separator: "\n").compactMap { line in
                line.firstRange(of: "\"decision\": \"")
                    .map { String(line[$0.upperBound...].prefix { $0 != "\"" }) }
            }
            #expect(decisions.sorted() == ["granted", "rejected", "repeated", "repeated"], "\(audit)")
            #expect(audit.contains("\"refusal\": \"replayed\""), "\(audit)")
            #expect(!redactingMeasuredValues(audit).contains("4711"))  // attempt ids and timings may hold any digits
            // /metrics on each instance counts its own decisions and shows its pool.
            let textA = try await LoopbackHTTP.get(port: a, path: "/metrics").body
            #expect(textA.contains("kioskpad_verifier_decisions_total{result=\"granted\"} 1\n"), "\(textA)")
            #expect(textA.contains("kioskpad_verifier_decisions_total{result=\"repeated\"} 1\n"))
            #expect(textA.contains("kioskpad_verifier_db_pool_size 10.0\n") && textA.contains("kioskpad_verifier_db_connections_in_use 0.0\n"))
            #expect(textA.contains("kioskpad_verifier_request_duration_seconds_count 2\n"))
            let textB = try await LoopbackHTTP.get(port: b, path: "/metrics").body
            #expect(textB.contains("kioskpad_verifier_decisions_total{result=\"repeated\"} 1\n"), "\(textB)")
            #expect(textB.contains("kioskpad_verifier_decisions_total{result=\"replayed\"} 1\n") && !textB.contains("result=\"granted\""), "\(textB)")
        }
    }

    @Test func aOneTimeCodeTriedFiftyTimesAtOnceOnTwoInstancesOpensOnce() async throws {
        let site = try await Site()
        try await site.closing {
            try await site.addUser("dana", pin: "4711")
            try await site.startInstances(2)
            let issued = try await site.cli(["verifier", "code", "issue", "--user", "dana", "--ttl", "10m"])
            let code = issued.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(issued.status == 0 && code.count == 8, "\(issued.stderr)")
            let secret = try site.secret
            let ports = site.instances.map(\.port)
            let statuses = try await withThrowingTaskGroup(of: (Int, String).self) { group in
                for index in 0..<50 {
                    // One terminal per try: each waits only for its own lockout row.
                    let request = SignedRequest(terminal: "door-\(index)", kind: .code, value: code, secret: secret)
                    group.addTask { try await request.send(to: ports[index % 2]) }
                }
                var results: [(Int, String)] = []
                for try await result in group { results.append(result) }
                return results
            }
            let granted = statuses.filter { $0.0 == 200 && $0.1.contains("\"decision\":\"granted\"") }.count
            let denied = statuses.filter { $0.0 == 200 && $0.1.contains("\"decision\":\"denied\"") }.count
            #expect(granted == 1 && denied == 49, "\(statuses.map(\.0))")
            #expect(try await site.database.query("SELECT count(*) FROM kioskpad_codes WHERE used_at IS NOT NULL") == "1\n")
        }
    }

    @Test func failuresSpreadOverTwoInstancesLockTheTerminalAfterMaxFailuresInTotal() async throws {
        let site = try await Site(extraSettings: "  lockout:\n    max_failures: 3\n    lockout_s: 60\n")
        try await site.closing {
            try await site.addUser("dana", pin: "4711")
            try await site.startInstances(2)
            let secret = try site.secret
            let (a, b) = (site.instances[0].port, site.instances[1].port)
            for port in [a, b] {
                let denied = try await SignedRequest(terminal: "door-7", value: "1111", secret: secret).send(to: port)
                #expect(denied.status == 200 && denied.body.contains("\"decision\":\"denied\"") && !denied.body.contains("Locked out"), "\(denied)")
            }
            // Another terminal's failures do not count towards door-7's.
            _ = try await SignedRequest(terminal: "door-8", value: "1111", secret: secret).send(to: b)
            let third = try await SignedRequest(terminal: "door-7", value: "2222", secret: secret).send(to: a)
            #expect(third.status == 200 && third.body.contains("\"decision\":\"denied\""))
            for port in [b, a] {
                let locked = try await SignedRequest(terminal: "door-7", value: "4711", secret: secret).send(to: port)
                #expect(locked.status == 200 && locked.body.contains("Locked out"), "\(locked)")
            }
            let other = try await SignedRequest(terminal: "door-8", value: "4711", secret: secret).send(to: a)
            #expect(other.body.contains("\"decision\":\"granted\""), "\(other)")
        }
    }

    @Test func aTOTPCodeIsAcceptedOnceAcrossBothInstances() async throws {
        let site = try await Site()
        try await site.closing {
            try await site.addUser("dana", pin: "4711")
            let uri = try await site.cli(["verifier", "user", "totp", "dana"]).stdout
            let base32 = try #require(uri.split(separator: "secret=").last?.split(separator: "&").first)
            let totp = TOTP(secret: try #require(TOTP.base32Decode(String(base32))))
            try await site.startInstances(2)
            let secret = try site.secret
            let code = totp.code(step: Int(Date().timeIntervalSince1970) / 30)
            let first = try await SignedRequest(terminal: "door-1", kind: .code, value: code, secret: secret).send(to: site.instances[1].port)
            #expect(first.body.contains("\"decision\":\"granted\""), "\(first)")
            let second = try await SignedRequest(terminal: "door-2", kind: .code, value: code, secret: secret).send(to: site.instances[0].port)
            #expect(second.status == 200 && second.body.contains("\"decision\":\"denied\""), "\(second)")
        }
    }

    @Test func theDatabaseStoppedMidLoadAnswers503NeverAGrantAndServiceResumesWithoutARestart() async throws {
        let site = try await Site()
        try await site.closing {
            try await site.addUser("dana", pin: "4711")
            // The short deadline for the instance only: each request of the outage waits it out,
            // while the set-up's CLI keeps the 5 s a busy machine may need.
            try site.writeConfig(timeoutMilliseconds: 1500)
            try await site.startInstances(1)
            let port = site.instances[0].port
            let secret = try site.secret
            let health = try await site.instances[0].health()
            #expect(health["store"] as? String == "ok")

            // Load: a grant every request, one terminal per task, while the database goes away.
            actor Tally {
                var statuses: [Int] = []
                func add(_ status: Int) { statuses.append(status) }
            }
            let duringOutage = Tally()
            let database = site.database
            try await onOwnThread { try database.stop() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for round in 0..<5 {
                            let answer = try await SignedRequest(terminal: "door-\(worker)-\(round)", value: "4711", secret: secret).send(to: port)
                            await duringOutage.add(answer.status)
                            #expect(!answer.body.contains("\"decision\":\"granted\""))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let statuses = await duringOutage.statuses
            #expect(statuses.count == 20 && statuses.allSatisfy { $0 == 503 }, "\(statuses)")
            // A terminal shows it.
            let terminal = try await CLI.run(
                [
                    "simulate", "--display", "plain", "--verifier", "http://127.0.0.1:\(port)/verify",
                    "--verifier-secret-file", site.directory.appendingPathComponent("secret").path,
                ], stdin: "4711")
            #expect(terminal.stdout.contains("Verifier unavailable") && !terminal.stdout.contains("Access granted"), "\(terminal.stdout)")
            #expect(try await LoopbackHTTP.get(port: port, path: "/healthz").status == 200, "/healthz answers 200 (docs/openapi.yaml); its body tells")
            let down = try await site.instances[0].health()
            #expect(down["store"] as? String == "unavailable" && (down["problem"] as? String)?.isEmpty == false, "\(down)")

            try await onOwnThread { try database.start() }
            let metrics = try await LoopbackHTTP.get(port: port, path: "/metrics").body
            #expect(metrics.contains("kioskpad_verifier_decisions_total{result=\"unavailable\"} 21\n"))
            let resumed = await eventually {
                (try? await SignedRequest(terminal: "door-back", value: "4711", secret: secret).send(to: port))?.body.contains("\"decision\":\"granted\"")
                    == true
            }
            #expect(resumed, "the verifier serves again once the database is back, without a restart")
            #expect(try await site.instances[0].health()["store"] as? String == "ok")
        }
    }
}
