import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import SiteCore
import Testing
import VerifierTestSupport

/// A user renamed through `PATCH /api/v1/users/{name}` on both stores: their credentials,
/// rule and unused codes go with them, a taken or malformed name is refused, and the rename
/// is one audit record.
@Suite("Management API: renaming a user", .serialized)
struct ManagementAPIRenameTests {
    let api = ManagementAPITests()
    let hooks = ManagementAPIWebhookTests()

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aRenamedUserKeepsTheirCredentialsRuleAndCodes(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["ana", "ben"])
            let token = try await api.token(harness, "hr", [.users, .codes])
            _ = try await hooks.send(client, "/api/v1/users/ana/cards", .post, #"{"number":"10048576"}"#, token: token)
            _ = try await hooks.send(client, "/api/v1/users/ana/codes", .post, #"{"minutes":60}"#, token: token)
            let (renamed, user) = try await hooks.send(client, "/api/v1/users/ana", .patch, #"{"name":"ana.smith","doors":["front"]}"#, token: token)
            #expect(renamed == 200 && user["name"] as? String == "ana.smith" && user["cards"] as? Int == 1 && user["pin"] as? Bool == true)
            #expect(user["doors"] as? [String] == ["front"], "the rule sent with it applies too")
            #expect(try await api.call(client, "/api/v1/users/ana", token: token).0 == 404)
            let (_, codes) = try await api.call(client, "/api/v1/codes", token: token)
            #expect((codes["codes"] as? [[String: Any]])?.first?["user"] as? String == "ana.smith", "the unused code goes with her")
            let (taken, why) = try await hooks.send(client, "/api/v1/users/ana.smith", .patch, #"{"name":"ben"}"#, token: token)
            #expect(taken == 409 && (why["error"] as? String)?.contains("ben") == true)
            let (bad, _) = try await hooks.send(client, "/api/v1/users/ana.smith", .patch, #"{"name":"ana smith"}"#, token: token)
            #expect(bad == 400)
            #expect(try await harness.under.administration.list().map(\.name).sorted() == ["ana.smith", "ben"])
            let records = try await harness.under.auditRecords().filter { $0["action"] == "user_rename" }
            #expect(records.count == 1 && records.first?["user"] == "ana" && records.first?["new_name"] == "ana.smith")
        }
    }
}
