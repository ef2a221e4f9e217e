import KioskPadConfig
import KioskPadEndpoints
import SiteConfig
import Testing

/// `server.store`, `server.sqlite` and `server.postgres`: what a site writes, and the
/// mistakes it gets a clear error for.
@Suite("Verifier config: store, sqlite and postgres")
struct ServerStoreConfigTests {
    let base = "server:\n  allow_unsigned: true\n"

    func problem(_ yaml: String) -> String {
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parseServer(yaml: base + yaml, source: "v.yaml") }
        return error?.description ?? ""
    }

    @Test func aPostgresStoreReadsItsURLPasswordSourceAndLimits() throws {
        let settings = try ConfigLoader.parseServer(
            yaml: base + """
                  store: postgres
                  postgres:
                    url: postgres://kioskpad@db.example.net:5433/doors
                    password_credential: db-password
                    ca_file: db-ca.pem
                    pool_size: 4
                    timeout_ms: 800

                """, source: "v.yaml", baseDirectory: "/etc/kioskpad")
        let expected = PostgresSettings(
            host: "db.example.net", port: 5433, user: "kioskpad", database: "doors", password: .credential("db-password"),
            tls: .verifyFull, caFile: "/etc/kioskpad/db-ca.pem", poolSize: 4, timeout: .milliseconds(800))
        #expect(settings.store == .postgres(expected))
        #expect(expected.displayURL == "postgres://kioskpad@db.example.net:5433/doors")
    }

    @Test func aPrimaryAndItsStandbysAreOneURL() throws {
        let settings = try ConfigLoader.parseServer(
            yaml: base + "  store: postgres\n  postgres:\n    url: postgres://kioskpad@db1.example.net:5432,[2001:db8::7],db3.example.net:5433/doors\n",
            source: "v.yaml")
        guard case .postgres(let postgres) = settings.store else {
            Issue.record("not postgres")
            return
        }
        #expect(postgres.host == "db1.example.net" && postgres.port == 5432 && postgres.user == "kioskpad" && postgres.database == "doors")
        #expect(postgres.otherHosts == [PostgresAddress(host: "2001:db8::7", port: 5432), PostgresAddress(host: "db3.example.net", port: 5433)])
        #expect(postgres.displayURL == "postgres://kioskpad@db1.example.net:5432,[2001:db8::7]:5432,db3.example.net:5433/doors")
        #expect(
            problem("  store: postgres\n  postgres:\n    url: postgres://a@db1:5432,db1:5432/k\n").contains(
                "server.postgres.url: names db1:5432 twice"))
        #expect(
            problem("  store: postgres\n  postgres:\n    url: postgres://a@db1,,db2/k\n").contains("server.postgres.url: host '': "))
        #expect(
            problem("  store: postgres\n  postgres:\n    url: postgres://a@h1,h2,h3,h4,h5/k\n").contains(
                "server.postgres.url: names 5 hosts; a primary and its standbys are 2 to 4"))
        // Plaintext to any host off this machine needs allow_plaintext.
        #expect(
            problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1:5432,10.0.0.6:5432/k\n    tls: disable\n").contains(
                "in the clear to 10.0.0.6"))
    }

    @Test func forwardedEventsAreKeptAYearUnlessKeepDaysSaysOtherwise() throws {
        #expect(try ConfigLoader.parseServer(yaml: base, source: "v.yaml").eventsKeepDays == 365)
        #expect(try ConfigLoader.parseServer(yaml: base + "  events:\n    keep_days: 30\n", source: "v.yaml").eventsKeepDays == 30)
        #expect(problem("  events:\n    keep_days: 0\n").contains("server.events.keep_days: 0 is out of range 1...36500"))
        #expect(problem("  events:\n    keep: 30\n").contains("server.events.keep"))
    }

    @Test func sqliteIsTheDefaultInTheStateDirectory() throws {
        let bare = try ConfigLoader.parseServer(yaml: base, source: "v.yaml")
        #expect(bare.store == .sqlite(SQLiteSettings(path: "/var/lib/kioskpad-verifier/verifier.sqlite3", busyTimeout: .seconds(5))))
        let moved = try ConfigLoader.parseServer(yaml: base + "  state_dir: state\n", source: "v.yaml", baseDirectory: "/etc/kioskpad")
        #expect(moved.store == .sqlite(SQLiteSettings(path: "/etc/kioskpad/state/verifier.sqlite3")))
        let named = try ConfigLoader.parseServer(
            yaml: base + "  store: sqlite\n  sqlite:\n    path: db/doors.sqlite3\n    busy_timeout_ms: 250\n", source: "v.yaml", baseDirectory: "/srv")
        #expect(named.store == .sqlite(SQLiteSettings(path: "/srv/db/doors.sqlite3", busyTimeout: .milliseconds(250))))
    }

    @Test func theRetiredFileStoreNamesTheImportCommand() {
        #expect(
            problem("  users_file: users\n").contains(
                "server.users_file: is no longer read: the verifier keeps its users in its database; bring them in once with `kioskpad verifier import --users-file ./users --config v.yaml`"
            ))
        #expect(problem("  store: file\n").contains("server.store: file is gone"))
        #expect(problem("  store: file\n").contains("kioskpad verifier import --users-file FILE"))
    }

    @Test func plaintextToADatabaseOffThisMachineNeedsAllowPlaintext() throws {
        let yaml = "  store: postgres\n  postgres:\n    url: postgres://kioskpad@10.0.0.5/kioskpad\n    tls: disable\n"
        #expect(problem(yaml).contains("server.postgres.tls: disable sends the database password and users' hashes in the clear to 10.0.0.5"))
        let allowed = try ConfigLoader.parseServer(yaml: base + yaml + "    allow_plaintext: true\n", source: "v.yaml")
        guard case .postgres(let settings) = allowed.store else {
            Issue.record("not postgres")
            return
        }
        #expect(settings.tls == .disable && settings.port == 5432)
        let loopback = try ConfigLoader.parseServer(
            yaml: base + "  store: postgres\n  postgres:\n    url: postgres://kioskpad@127.0.0.1/kioskpad\n    tls: disable\n", source: "v.yaml")
        guard case .postgres = loopback.store else {
            Issue.record("not postgres")
            return
        }
    }

    @Test func mistakesNameTheKeyAndWhatIsValid() {
        #expect(problem("  store: mysql\n").contains("server.store: 'mysql' is not one of: sqlite, postgres"))
        #expect(problem("  store: postgres\n").contains("server.postgres: is required with store: postgres"))
        #expect(problem("  store: postgres\n  postgres:\n    tls: disable\n").contains("server.postgres.url: is required"))
        #expect(
            problem("  store: postgres\n  postgres:\n    url: postgres://kioskpad:hunter2@127.0.0.1/kioskpad\n")
                .contains("server.postgres.url: holds a password; put it in password_file"))
        #expect(!problem("  store: postgres\n  postgres:\n    url: postgres://kioskpad:hunter2@127.0.0.1/kioskpad\n").contains("hunter2"))
        #expect(problem("  store: postgres\n  postgres:\n    url: mysql://a@b/c\n").contains("is not a postgres:// URL"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1\n").contains("needs a database name"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1/k?sslmode=disable\n").contains("takes no ?options"))
        #expect(
            problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1/k\n    tls: prefer\n")
                .contains("server.postgres.tls: 'prefer' is not one of: verify-full, disable"))
        #expect(problem("  postgres:\n    url: postgres://a@127.0.0.1/k\n").contains("server.postgres: is only read with store: postgres"))
        #expect(
            problem("  store: postgres\n  sqlite:\n    path: x\n  postgres:\n    url: postgres://a@127.0.0.1/k\n")
                .contains("server.sqlite: is only read with store: sqlite"))
        #expect(problem("  sqlite:\n    busy_timeout_ms: 5\n").contains("server.sqlite.busy_timeout_ms"))
        #expect(problem("  sqlite:\n    file: x\n").contains("server.sqlite.file: unknown key"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1/k\n    pool: 3\n").contains("server.postgres.pool: unknown key"))
        #expect(
            problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1/k\n    pool: 3\n")
                .contains("Valid keys here: allow_plaintext, ca_file, password_credential, password_env, password_file, pool_size, timeout_ms, tls, url"))
    }
}
