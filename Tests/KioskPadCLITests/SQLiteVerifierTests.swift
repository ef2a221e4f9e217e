import DoorVerifierClient
import Foundation
import Glibc
import KeypadTestSupport
import KioskPadAccess
import KioskPadCore
import SiteSQL
import Synchronization
import Testing
import VerifierTestSupport

/// `kioskpad verifier` on its own SQLite file (`server.store: sqlite`, the default), run as
/// a user would: migrations, import and export, lockouts, backup, who may open the file,
/// and every way the file can fail, each a clear error naming `server.sqlite.path`.
@Suite("Reference verifier on SQLite", .serialized, .heavy)
struct SQLiteVerifierTests {
    func database(_ directory: URL) -> String { directory.appendingPathComponent("state/verifier.sqlite3").path }

    /// Runs a Python sqlite3 script (an independent SQLite) with the database path as argv[1].
    func python(_ script: String, _ path: String) async throws -> String {
        try await CLI.runTool("/usr/bin/env", ["python3", "-c", script, path])
    }

    /// Another process (Python's sqlite3) holding the write lock on `path` for `seconds`;
    /// returns once it holds it. The caller terminates it.
    func lockHolder(_ path: String, seconds: Int) async throws -> Process {
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = [
            "python3", "-c",
            """
            import sqlite3, sys, time
            c = sqlite3.connect(sys.argv[1], isolation_level=None); c.execute('BEGIN IMMEDIATE'); print('locked', flush=True); time.sleep(\(seconds))
            """, path,
        ]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        _ = try await onOwnThread { output.fileHandleForReading.availableData }
        return holder
    }

    func integrity(_ path: String) async throws -> String {
        try await python("import sqlite3, sys; print(sqlite3.connect(sys.argv[1]).execute('PRAGMA integrity_check').fetchone()[0])", path)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func theFileIsMadePrivateMigratedOnceAndANewerOneIsRefused() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = database(directory)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let again = try await CLI.run(["verifier", "migrate", "--config", directory.appendingPathComponent("verifier.yaml").path])
        #expect(again.status == 0 && again.stdout.contains("at version \(SiteMigrations.latestVersion) (already)"), "\(again.stdout)\(again.stderr)")
        let pragmas = try await python(
            """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            print(c.execute('PRAGMA journal_mode').fetchone()[0], c.execute('SELECT count(*) FROM kioskpad_schema_migrations').fetchone()[0])
            c.execute('INSERT INTO kioskpad_schema_migrations (version) VALUES (99)'); c.commit()
            """, path)
        #expect(pragmas.trimmingCharacters(in: .whitespacesAndNewlines) == "wal \(SiteMigrations.latestVersion)")
        let refused = try await CLI.run(["verifier", "serve", "--config", directory.appendingPathComponent("verifier.yaml").path])
        #expect(refused.status == 1)
        #expect(
            refused.stderr.contains(
                "server.sqlite.path: \(path) was written by a newer kioskpad (schema version 99; this one knows up to \(SiteMigrations.latestVersion)); upgrade kioskpad"
            ),
            "\(refused.stderr)")
    }

    @Test func importIsIdempotentReportsClashesAndExportRoundTrips() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("verifier.yaml").path
        let users = directory.appendingPathComponent("users").path
        // dana and more: a TOTP secret, a duress PIN and a card, in a second users file.
        let erin = try await CLI.run(["pin", "hash", "--user", "erin", "--iterations", "1000"], stdin: "5820\n")
        let duress = try await CLI.run(["pin", "hash", "--user", "erin", "--iterations", "1000"], stdin: "5821\n")
        let card = try await CLI.run(["pin", "hash", "--user", "erin", "--iterations", "1000"], stdin: "00065537\n")
        let more = directory.appendingPathComponent("more-users").path
        try
            (try String(contentsOfFile: users, encoding: .utf8) + "# erin\n"
            + erin.stdout.trimmingCharacters(in: .newlines) + ":totp=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ\n"
            + duress.stdout.trimmingCharacters(in: .newlines) + ":duress\n" + card.stdout.trimmingCharacters(in: .newlines) + ":card\n")
            .write(toFile: more, atomically: true, encoding: .utf8)
        let first = try await CLI.run(["verifier", "import", "--users-file", more, "--config", config])
        #expect(first.status == 0 && first.stdout.contains("imported 3 lines"), "\(first.stdout)\(first.stderr)")
        let second = try await CLI.run(["verifier", "import", "--users-file", more, "--config", config])
        #expect(second.status == 0 && second.stdout.contains("imported 0 lines"), "\(second.stdout)")
        let list = try await CLI.run(["verifier", "user", "list", "--config", config])
        #expect(
            list.stdout
                == "dana pin doors=all schedule=always valid=always enabled\nerin pin,totp,duress,cards=1 doors=all schedule=always valid=always enabled\n")
        // Export, then import into a new database: the same users, line for line.
        let exported = try await VerifierProcess.exportedUsers(directory)
        let original = try UsersFile.load(path: more)
        #expect(try UsersFile(parsing: exported, source: "export").users == original.users)
        #expect(!exported.contains("5820") && !exported.contains("00065537"))
        // A clash (dana with another PIN) is named; nothing of that file is imported.
        let other = try await CLI.run(["pin", "hash", "--user", "dana", "--iterations", "1000"], stdin: "1111\n")
        let zoe = try await CLI.run(["pin", "hash", "--user", "zoe", "--iterations", "1000"], stdin: "2222\n")
        let clashing = directory.appendingPathComponent("clash").path
        try (zoe.stdout + other.stdout).write(toFile: clashing, atomically: true, encoding: .utf8)
        let clash = try await CLI.run(["verifier", "import", "--users-file", clashing, "--config", config])
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("user 'dana' is in the database with other lines") && clash.stderr.contains("nothing was imported"), "\(clash.stderr)")
        #expect(!clash.stderr.contains("zoe"))
        // A malformed users file names its bad line and imports nothing.
        let broken = directory.appendingPathComponent("broken").path
        try (zoe.stdout + "ulla:not-a-hash\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let malformed = try await CLI.run(["verifier", "import", "--users-file", broken, "--config", config])
        #expect(malformed.status == 2 && malformed.stderr.contains("--users-file: \(broken) line 2:"), "\(malformed.stderr)")
        #expect(try await CLI.run(["verifier", "user", "list", "--config", config]).stdout == list.stdout)
    }

    @Test func aFileThatIsNotADatabaseIsAClearErrorNeverAGrant() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = database(directory)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try String(repeating: "these are not the pages of a database\n", count: 200).write(toFile: path, atomically: true, encoding: .utf8)
        let serve = try await CLI.run(["verifier", "serve", "--config", directory.appendingPathComponent("verifier.yaml").path])
        #expect(serve.status == 1)
        #expect(serve.stderr.contains("server.sqlite.path: \(path) is not a SQLite database"), "\(serve.stderr)")
        #expect(!serve.stdout.contains("listening"))
    }

    @Test func aDatabaseLockedLongerThanTheBusyTimeoutIsAClearError() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691", extraSettings: "  sqlite:\n    busy_timeout_ms: 300\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = database(directory)
        // Another process takes the write lock and keeps it for 4 seconds.
        let holder = try await lockHolder(path, seconds: 4)
        defer { holder.terminate() }
        let added = try await CLI.run(
            ["verifier", "user", "add", "zoe", "--iterations", "1000", "--config", directory.appendingPathComponent("verifier.yaml").path], stdin: "2222\n")
        #expect(added.status == 1)
        #expect(added.stderr.contains("server.sqlite.path: \(path) is locked by another process for longer than the busy timeout (300 ms)"), "\(added.stderr)")
    }

    /// `verifier serve` stops within 10 s of SIGTERM even while a
    /// request waits on a database another process keeps locked: it logs what was still
    /// running and exits 1. Without that bound it would wait out the lock (40 s here).
    @Test func aServerWaitingOnALockedDatabaseStopsByItsDeadline() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691", extraSettings: "  sqlite:\n    busy_timeout_ms: 60000\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let log = directory.appendingPathComponent("serve.err")
        let server = try await VerifierProcess(directory: directory, stderr: log)
        defer { server.stop() }
        let holder = try await lockHolder(database(directory), seconds: 40)
        defer { holder.terminate() }
        // A door announcing itself: the server writes the announcement, and waits on the lock.
        let raw = Data(repeating: 9, count: 32)
        let half = try PairingExchange.doorHalf(secret: "12345678", doorKey: raw)
        let body =
            #"{"door_key":"\#(raw.base64EncodedString())","pake_message":"\#(half.message.base64EncodedString())","pake_sid":"\#(half.sid.base64EncodedString())","result_key":"\#(raw.base64EncodedString())"}"#
        let port = server.port
        let announcing = Task {
            try? await LoopbackHTTP.post(port: port, path: "/v1/pair", body: Array(body.utf8), headers: [], timeout: .seconds(50))
        }
        try await Task.sleep(for: .seconds(1))
        let signalled = ContinuousClock.now
        let status = await server.stopped()
        let took = ContinuousClock.now - signalled
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        #expect(status == 1, "\(text)")
        #expect(took >= .seconds(10) && took < .seconds(30), "stopped \(took) after SIGTERM: \(text)")
        #expect(text.contains("verifier serve did not stop within 10 s of SIGTERM; exiting now"), "\(text)")
        #expect(text.contains("still_running=doors' HTTP server"), "\(text)")
        #expect(await announcing.value == nil, "the request in flight got no answer")
    }

    @Test(.enabled(if: geteuid() == 0, "mounts a tmpfs (root)"))
    func aReadOnlyMountAndAFullDiskAreClearErrorsNeverAGrant() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691", extraSettings: "  sqlite:\n    path: mnt/verifier.sqlite3\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mount = directory.appendingPathComponent("mnt").path
        let config = directory.appendingPathComponent("verifier.yaml").path
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        _ = try await CLI.runTool("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mount])
        // A lazy unmount (the syscall `umount -l` makes): it returns at once.
        defer { _ = umount2(mount, Int32(MNT_DETACH)) }
        let path = mount + "/verifier.sqlite3"
        #expect(try await CLI.run(["verifier", "import", "--users-file", directory.appendingPathComponent("users").path, "--config", config]).status == 0)
        // Full: fill the rest of the tmpfs, then add users until a write cannot be made.
        _ = try? await CLI.runTool("/bin/dd", ["if=/dev/zero", "of=\(mount)/filler", "bs=4k", "count=2000"])
        let full = try await CLI.run(["verifier", "user", "add", "zoe", "--iterations", "1000", "--config", config], stdin: "2222\n")
        #expect(full.status == 1)
        #expect(full.stderr.contains("server.sqlite.path:") && full.stderr.contains("the disk is full"), "\(full.stderr)")
        try FileManager.default.removeItem(atPath: mount + "/filler")
        // Read-only: remounted read-only (root ignores file modes, not a read-only mount).
        _ = try await CLI.runTool("/bin/mount", ["-o", "remount,ro", mount])
        let readOnly = try await CLI.run(["verifier", "serve", "--config", config])
        #expect(readOnly.status == 1)
        #expect(readOnly.stderr.contains("server.sqlite.path: \(path)") && readOnly.stderr.contains("read-only"), "\(readOnly.stderr)")
        #expect(!readOnly.stdout.contains("listening"))
    }

    @Test(.enabled(if: geteuid() == 0, "changes owners (root)"))
    func rootOpensADatabaseOfTheServiceUserAsThatUser() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691", extraSettings: "  sqlite:\n    path: owned/verifier.sqlite3\n")
        defer { try? FileManager.default.removeItem(at: directory) }
        // prepare() made the database as root; a service user's directory starts empty.
        let owned = directory.appendingPathComponent("owned").path
        try FileManager.default.removeItem(atPath: owned)
        try FileManager.default.createDirectory(atPath: owned, withIntermediateDirectories: true)
        let nobody = try #require(getpwnam("nobody")?.pointee)
        #expect(chown(owned, nobody.pw_uid, nobody.pw_gid) == 0)
        #expect(chown(directory.path, 0, 0) == 0 && chmod(directory.path, 0o755) == 0)
        let imported = try await CLI.run([
            "verifier", "import", "--users-file", directory.appendingPathComponent("users").path, "--config",
            directory.appendingPathComponent("verifier.yaml").path,
        ])
        #expect(imported.status == 0, "\(imported.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: owned)
        #expect(files.contains("verifier.sqlite3"))
        for file in files {
            let owner = try FileManager.default.attributesOfItem(atPath: owned + "/" + file)[.ownerAccountID] as? NSNumber
            #expect(owner?.uint32Value == nobody.pw_uid, "\(file) belongs to \(owner.map { "\($0)" } ?? "?"), not to nobody")
        }
    }

    @Test func aBackupWhileTheServerWritesIsWholeAndRestores() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("verifier.yaml").path
        let server = try await VerifierProcess(directory: directory)
        let client = try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(server.port)/verify", deadline: .seconds(10), secret: try server.secret))
        // Attempts keep arriving while the backup is made.
        let load = Task {
            var answered = 0
            while !Task.isCancelled {
                if case .granted = await client.verify(VerificationAttempt(terminalID: "door-\(answered % 4)", kind: .pin, value: SecretDigits(ascii: "3691")!))
                {
                    answered += 1
                }
            }
            return answered
        }
        try await Task.sleep(for: .milliseconds(300))
        let backup = directory.appendingPathComponent("backup.sqlite3").path
        let made = try await CLI.run(["verifier", "backup", "--to", backup, "--config", config])
        let answered = await {
            load.cancel()
            return await load.value
        }()
        await client.shutdown()
        await server.stopped()
        #expect(made.status == 0, "\(made.stderr)")
        #expect(answered > 0)
        #expect(try await integrity(backup) == "ok")
        let again = try await CLI.run(["verifier", "backup", "--to", backup, "--config", config])
        #expect(again.status == 1 && again.stderr.contains("exists; a backup is written to a new file"), "\(again.stderr)")
        // Restore as docs/site-server.md says: stop, copy over the database, start.
        let path = database(directory)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try FileManager.default.copyItem(atPath: backup, toPath: path)
        let restored = try await VerifierProcess(directory: directory)
        defer { restored.stop() }
        let after = try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(restored.port)/verify", deadline: .seconds(10), secret: try restored.secret))
        #expect(
            await after.verify(VerificationAttempt(terminalID: "door-1", kind: .pin, value: SecretDigits(ascii: "3691")!))
                == .granted(message: nil, unlockSeconds: nil, user: "dana"))
        await after.shutdown()
    }

    @Test func killedWhileTwentyTerminalsSendNoAnsweredAttemptIsLostFromTheAudit() async throws {
        let directory = try await VerifierProcess.prepare(pin: "3691")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await VerifierProcess(directory: directory)
        let secret = try server.secret
        let answered = AnsweredAttempts()
        let terminals = try (0..<20).map { _ in
            try HTTPVerifier(settings: .init(url: "http://127.0.0.1:\(server.port)/verify", deadline: .seconds(5), secret: secret))
        }
        let load = Task {
            await withTaskGroup(of: Void.self) { group in
                for (index, client) in terminals.enumerated() {
                    group.addTask {
                        // A wrong PIN now and then, so denials (and lockout rows) are written too.
                        for round in 0..<10_000 {
                            let attempt = VerificationAttempt(
                                terminalID: "door-\(index)", kind: .pin, value: SecretDigits(ascii: round % 3 == 2 ? "0000" : "3691")!)
                            switch await client.verify(attempt) {
                            case .granted, .denied: answered.add(attempt.attemptID.uuidString.lowercased())
                            default: return  // the server is gone
                            }
                        }
                    }
                }
            }
        }
        try await Task.sleep(for: .milliseconds(1500))
        await server.killed()
        await load.value
        for client in terminals { await client.shutdown() }
        let path = database(directory)
        let audited = Set(
            try await SQLiteAuditReader.records(path: path).compactMap {
                (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: String])?["attempt_id"]
            })
        let answers = answered.all
        #expect(answers.count > 20, "the load reached the server: \(answers.count) answers")
        let lost = answers.filter { !audited.contains($0) }
        #expect(lost.isEmpty, "\(lost.count) of \(answers.count) answered attempts have no audit record")
        #expect(try await integrity(path) == "ok")
        // And it starts again on the same file.
        let restarted = try await VerifierProcess(directory: directory)
        defer { restarted.stop() }
        let health = try await restarted.health()
        #expect(health["store"] as? String == "ok")
    }
}

/// The attempt ids the terminals got an answer for, from many tasks at once.
final class AnsweredAttempts: Sendable {
    private let ids = Mutex<[String]>([])

    func add(_ id: String) { ids.withLock { $0.append(id) } }
    var all: [String] { ids.withLock { $0 } }
}
