import KioskPadConfig
import Testing
import VerifierEndpoint

/// `server.store` and `server.postgres`: what a site with many doors writes, and the
/// mistakes it gets a clear error for.
@Suite("Verifier config: store and postgres")
struct ServerStoreConfigTests {
    let base = "server:\n  allow_unsigned: true\n"

    func problem(_ yaml: String) -> String {
        let error = #expect(throws: ConfigError.self) { try ConfigLoader.parseServer(yaml: base + yaml, source: "v.yaml") }
        return error?.description ?? ""
    }

    @Test func aPostgresStoreReadsItsURLPasswordSourceAndLimits() throws {
        let settings = try ConfigLoader.parseServer(yaml: base + """
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
        // No users file needed; the default store is still the file.
        #expect(try ConfigLoader.parseServer(yaml: base + "  users_file: users\n", source: "v.yaml").store == .file)
    }

    @Test func plaintextToADatabaseOffThisMachineNeedsAllowPlaintext() throws {
        let yaml = "  store: postgres\n  postgres:\n    url: postgres://kioskpad@10.0.0.5/kioskpad\n    tls: disable\n"
        #expect(problem(yaml).contains("server.postgres.tls: disable sends the database password and users' hashes in the clear to 10.0.0.5"))
        let allowed = try ConfigLoader.parseServer(yaml: base + yaml + "    allow_plaintext: true\n", source: "v.yaml")
        guard case .postgres(let settings) = allowed.store else { Issue.record("not postgres"); return }
        #expect(settings.tls == .disable && settings.port == 5432)
        let loopback = try ConfigLoader.parseServer(
            yaml: base + "  store: postgres\n  postgres:\n    url: postgres://kioskpad@127.0.0.1/kioskpad\n    tls: disable\n", source: "v.yaml")
        #expect(loopback.store != .file)
    }

    @Test func mistakesNameTheKeyAndWhatIsValid() {
        #expect(problem("  store: mysql\n  users_file: u\n").contains("server.store: 'mysql' is not one of: file, postgres"))
        #expect(problem("  store: postgres\n").contains("server.postgres: is required with store: postgres"))
        #expect(problem("  store: postgres\n  postgres:\n    tls: disable\n").contains("server.postgres.url: is required"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://kioskpad:hunter2@127.0.0.1/kioskpad\n")
            .contains("server.postgres.url: holds a password; put it in password_file"))
        #expect(!problem("  store: postgres\n  postgres:\n    url: postgres://kioskpad:hunter2@127.0.0.1/kioskpad\n").contains("hunter2"))
        #expect(problem("  store: postgres\n  postgres:\n    url: mysql://a@b/c\n").contains("is not a postgres:// URL"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1\n").contains("needs a database name"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1/k?sslmode=disable\n").contains("takes no ?options"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1/k\n    tls: prefer\n")
            .contains("server.postgres.tls: 'prefer' is not one of: verify-full, disable"))
        #expect(problem("  store: postgres\n  users_file: u\n  postgres:\n    url: postgres://a@127.0.0.1/k\n")
            .contains("server.users_file: is not read with store: postgres"))
        #expect(problem("  users_file: u\n  postgres:\n    url: postgres://a@127.0.0.1/k\n").contains("server.postgres: is only read with store: postgres"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1/k\n    pool: 3\n").contains("server.postgres.pool: unknown key"))
        #expect(problem("  store: postgres\n  postgres:\n    url: postgres://a@127.0.0.1/k\n    pool: 3\n")
            .contains("Valid keys here: allow_plaintext, ca_file, password_credential, password_env, password_file, pool_size, timeout_ms, tls, url"))
    }
}
