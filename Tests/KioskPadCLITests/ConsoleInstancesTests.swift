import Foundation
import KeypadTestSupport
import Testing

/// Two `verifier serve` instances on one PostgreSQL database, each with its console: an
/// administrator logged in on one is logged in on the other, and what one changes the
/// other shows (sessions, users and the audit live in the database).
@Suite("Site console on several instances", .serialized, .heavy)
struct ConsoleInstancesTests {
    /// curl with a cookie jar shared by both instances (cookies are per host, not per port).
    struct Curl {
        let jar: String

        func run(_ arguments: [String]) async throws -> String {
            try await CLI.runTool("/usr/bin/curl", ["-s", "-b", jar, "-c", jar] + arguments)
        }

        func status(_ arguments: [String]) async throws -> String {
            try await run(["-o", "/dev/null", "-w", "%{http_code}"] + arguments)
        }
    }

    static func field(_ name: String, in html: String) -> String {
        guard let start = html.range(of: "name=\"\(name)\" value=\"") else { return "" }
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }

    @Test func aSessionMadeOnOneInstanceWorksOnTheOtherAndEndsOnBoth() async throws {
        let site = try await PostgresVerifierTests.Site(extraSettings: "  console:\n    enabled: true\n    listen: 127.0.0.1:0\n")
        try await site.closing {
            let added = try await site.cli(["verifier", "admin", "add", "alice", "--role", "owner"], stdin: "correct horse battery\n")
            #expect(added.status == 0, "\(added.stderr)")
            try await site.startInstances(2)
            let first = try #require(site.instances[0].consoleURL)
            let second = try #require(site.instances[1].consoleURL)
            #expect(first != second)
            let curl = Curl(jar: site.directory.appendingPathComponent("cookies").path)
            let form = try await curl.run([first + "login"])
            let login = try await curl.status([
                "--data-urlencode", "login_token=\(Self.field("login_token", in: form))", "--data-urlencode", "name=alice",
                "--data-urlencode", "password=correct horse battery", first + "login",
            ])
            #expect(login == "303")
            // The other instance knows the session, and its form token.
            let users = try await curl.run([second + "users"])
            #expect(users.contains("id=\"admin-name\">alice<"), "\(users.prefix(300))")
            let csrf = Self.field("csrf", in: users)
            let add = try await curl.status([
                "--data-urlencode", "csrf=\(csrf)", "--data-urlencode", "name=kim", "--data-urlencode", "pin=4821", "--data-urlencode", "pin_again=4821",
                second + "users",
            ])
            #expect(add == "303")
            #expect(try await curl.run([first + "users?q=kim"]).contains("<td class=\"name\"><a href=\"/console/users/edit?name=kim\">kim</a></td>"))
            // Logging out on the first ends the session on the second.
            #expect(try await curl.status(["--data-urlencode", "csrf=\(csrf)", first + "logout"]) == "303")
            #expect(try await curl.status([second + "users"]) == "303")
            let audit = try await site.database.query("SELECT count(*) FROM kioskpad_audit WHERE record->>'action' = 'user_add' AND record->>'admin' = 'alice'")
            #expect(audit == "1\n")
        }
    }
}
