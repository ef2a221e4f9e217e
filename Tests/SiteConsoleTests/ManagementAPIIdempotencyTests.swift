import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import KioskPadAccess
import KioskPadCore
import NIOCore
import SiteCore
import Testing
import VerifierTestSupport

@testable import SiteConsole

/// `Idempotency-Key` on both stores: a retried request is applied once and gets the first
/// answer again; the key with another request is refused; keys are per token and forgotten
/// after a day.
@Suite("Management API: Idempotency-Key", .serialized)
struct ManagementAPIIdempotencyTests {
    let api = ManagementAPITests()

    func post(_ client: any TestClientProtocol, _ path: String, _ body: String, token: String, key: String?) async throws -> (Int, String, HTTPFields) {
        var headers: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
        if let key { headers[HTTPField.Name("Idempotency-Key")!] = key }
        let response = try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: body))
        return (Int(response.status.code), String(buffer: response.body), response.headers)
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aRetriedRequestIsAppliedOnceAndAnsweredTheSame(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["ben"])
            let token = try await api.token(harness, "booking", [.codes])
            let other = try await api.token(harness, "calendar", [.codes])
            let body = #"{"minutes":60,"door":"front"}"#
            let (first, answer, _) = try await post(client, "/api/v1/users/ben/codes", body, token: token, key: "visit-4711")
            let (retry, again, headers) = try await post(client, "/api/v1/users/ben/codes", body, token: token, key: "visit-4711")
            #expect(first == 201 && retry == 201)
            #expect(headers[HTTPField.Name("Idempotent-Replayed")!] == "true")
            // The code was shown once: the replay has the rest of the answer and says so; the
            // site keeps no code (issue 78).
            let shown = try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
            let replayed = try #require(try JSONSerialization.jsonObject(with: Data(again.utf8)) as? [String: Any])
            let code = try #require(shown["code"] as? String)
            #expect(replayed["code"] == nil && replayed["shown_once"] as? [String] == ["code"], "\(again)")
            #expect(replayed["user"] as? String == "ben" && replayed["expires"] as? String == shown["expires"] as? String)
            let kept = try await harness.under.tokens.claimIdempotencyKey(
                token: "booking", key: "visit-4711", fingerprint: "-", now: harness.clock.now, since: harness.clock.now.addingTimeInterval(-86_400))
            guard case .answered(_, _, let keptBody) = kept else {
                Issue.record("\(kept)")
                return
            }
            #expect(!keptBody.contains(code), "the stored answer holds no code")
            let codes = { try await api.call(client, "/api/v1/codes", token: token).1["codes"] as? [Any] }
            #expect(try await codes()?.count == 1, "one code issued")
            let (changed, why, _) = try await post(client, "/api/v1/users/ben/codes", #"{"minutes":30}"#, token: token, key: "visit-4711")
            #expect(changed == 422 && why.contains("another request"))
            let (elsewhere, _, _) = try await post(client, "/api/v1/users/ben/codes", body, token: other, key: "visit-4711")
            let afterOther = try await codes()?.count
            #expect(elsewhere == 201 && afterOther == 2, "a key belongs to its token")
            let (bad, badWhy, _) = try await post(client, "/api/v1/users/ben/codes", body, token: token, key: "has space")
            #expect(bad == 400 && badWhy.contains("Idempotency-Key must be"))
            _ = try await post(client, "/api/v1/users/ben/codes", body, token: token, key: nil)
            _ = try await post(client, "/api/v1/users/ben/codes", body, token: token, key: nil)
            #expect(try await codes()?.count == 4, "without a key each request is applied")
            let records = try await harness.under.administration.auditRecords(last: 20).filter { $0.contains("code_issue") }
            #expect(records.count == 4, "one audit record per change made")
        }
    }

    /// A body over the limit (8,192 bytes) is refused in JSON with the limit named, nothing
    /// changed, with a key (the key's middleware reads the body first) or without (the console's
    /// HTML 413 page answered it before, the API fuzzer found).
    @Test func aBodyOverTheLimitIsRefusedInJSONAndNothingIsChanged() async throws {
        try await ConsoleHarness.withConsole(.sqlite) { harness, client in
            let token = try await api.token(harness, "doors", [.doors])
            let padding = String(repeating: "x", count: 9_000)
            let put = { (body: String, key: String?) async throws -> (Int, String) in
                var headers: HTTPFields = [.authorization: "Bearer \(token)", .contentType: "application/json"]
                if let key { headers[HTTPField.Name("Idempotency-Key")!] = key }
                let response = try await client.execute(uri: "/api/v1/groups/night", method: .put, headers: headers, body: ByteBuffer(string: body))
                return (Int(response.status.code), String(buffer: response.body))
            }
            let (status, answer) = try await put(#"{"levels":["\#(padding)"]}"#, nil)
            #expect(status == 413 && answer.contains("larger than 8192 bytes"), "\(answer)")
            #expect(answer.hasPrefix("{"), "JSON, not the console's page")
            let (keyed, keyedAnswer) = try await put(#"{"levels":["\#(padding)"]}"#, "big-1")
            #expect(keyed == 413 && keyedAnswer.contains("larger than 8192 bytes") && keyedAnswer.hasPrefix("{"), "\(keyedAnswer)")
            let (small, _) = try await put(#"{"levels":[]}"#, nil)
            #expect(small == 200, "a body within the limit is taken")
            let groups = try await api.call(client, "/api/v1/groups", token: token).1["groups"] as? [[String: Any]]
            #expect(groups?.compactMap { $0["name"] as? String } == ["night"], "only the small one was stored")
        }
    }

    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aKeyIsClaimedOnceAndForgottenAfterADay(_ kind: StoreUnderTest.Kind) async throws {
        let under = try await StoreUnderTest.make(kind)
        defer { Task { await under.destroy() } }
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let claim = { (fingerprint: String, at: Date) in
            try await under.tokens.claimIdempotencyKey(token: "t", key: "k", fingerprint: fingerprint, now: at, since: at.addingTimeInterval(-86_400))
        }
        #expect(try await claim("a", now) == .new)
        #expect(try await claim("a", now) == .running(fingerprint: "a"), "the first is still being answered")
        try await under.tokens.finishIdempotencyKey(token: "t", key: "k", status: 201, body: "{}")
        #expect(try await claim("b", now) == .answered(fingerprint: "a", status: 201, body: "{}"))
        #expect(try await claim("b", now.addingTimeInterval(86_401)) == .new, "a day later the key is free")
        // A claim made in a request's transaction that rolls back (a server error, a crash)
        // leaves nothing.
        struct Failed: Error {}
        let other: @Sendable (Date) async throws -> IdempotencyClaim = { at in
            try await under.tokens.claimIdempotencyKey(token: "t", key: "r", fingerprint: "e", now: at, since: at.addingTimeInterval(-86_400))
        }
        await #expect(throws: Failed.self) {
            try await under.tokens.committing {
                #expect(try await other(now) == .new)
                throw Failed()
            }
        }
        #expect(try await other(now) == .new, "a rolled-back claim is free")
        // A claim left running (the server died mid-request) is taken over after a minute,
        // not answered 409 for a day.
        let left = now.addingTimeInterval(90_000)
        #expect(try await claim("d", left) == .new)
        #expect(try await claim("d", left.addingTimeInterval(30)) == .running(fingerprint: "d"))
        #expect(try await claim("d", left.addingTimeInterval(IdempotencyClaim.abandonedAfter + 1)) == .new, "taken over")
    }

    /// A token refused by its scope, or one that can only read, leaves nothing stored.
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aRefusedRequestKeepsNothing(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            try await api.addUsers(harness, ["ben"])
            let reader = try await api.token(harness, "reader", [.read])
            let hooks = try await api.token(harness, "hooks", [.webhooks])
            for (token, name) in [(reader, "reader"), (hooks, "hooks")] {
                let (status, _, _) = try await post(client, "/api/v1/users/ben/codes", #"{"minutes":60}"#, token: token, key: "k-\(name)")
                #expect(status == 403)
                let claim = try await harness.under.tokens.claimIdempotencyKey(
                    token: name, key: "k-\(name)", fingerprint: "-", now: harness.clock.now, since: harness.clock.now.addingTimeInterval(-86_400))
                #expect(claim == .new, "\(name): nothing was kept for the refusal")
            }
        }
    }

    /// The key's claim, the change and the kept answer are one transaction: a request whose
    /// change cannot be completed (its audit record refused) keeps neither the change nor the
    /// key, and its retry with the same key runs as the first (issue 78, point 7).
    @Test(arguments: StoreUnderTest.Kind.allCases)
    func aRequestThatFailsKeepsNeitherItsChangeNorItsKey(_ kind: StoreUnderTest.Kind) async throws {
        try await ConsoleHarness.withConsole(kind) { harness, client in
            let token = try await api.token(harness, "people", [.users])
            let hash = try PINHash.make(pin: SecretDigits(ascii: "2580")!, iterations: 1_000).description
            let body = #"{"name":"zoe","pin_hash":"\#(hash)"}"#
            let usersBefore = try await harness.under.count("kioskpad_users")
            try await harness.under.breakAuditTable()
            let (failed, _, _) = try await post(client, "/api/v1/users", body, token: token, key: "hire-zoe")
            try await harness.under.repairAuditTable()
            #expect(failed >= 500, "the change could not be audited: \(failed)")
            #expect(try await harness.under.count("kioskpad_users") == usersBefore, "no user without their audit record")
            #expect(try await harness.under.count("kioskpad_api_idempotency") == 0, "no key left claimed")
            let (retry, answer, headers) = try await post(client, "/api/v1/users", body, token: token, key: "hire-zoe")
            #expect(retry == 201 && headers[HTTPField.Name("Idempotent-Replayed")!] == nil, "the retry ran: \(answer)")
            let (again, _, replayed) = try await post(client, "/api/v1/users", body, token: token, key: "hire-zoe")
            #expect(again == 201 && replayed[HTTPField.Name("Idempotent-Replayed")!] == "true")
            let records = try await harness.under.auditRecords().filter { $0["action"] == "user_add" && $0["user"] == "zoe" }
            #expect(records.count == 1)
            #expect(try await harness.under.store.changeLog(after: 0, limit: 100).filter { $0.entry.subject == "zoe" }.count == 1)
        }
    }

    @Test func aKeptAnswerHoldsNoCodeSecretOrWholeWebhookURL() throws {
        let kept = APIIdempotency.kept(#"{"name":"chat","secret":"whsec_abc","url":"https://hooks.example/T0/SECRETPATH","events":[]}"#)
        #expect(!kept.contains("whsec_") && !kept.contains("SECRETPATH") && kept.contains(#""shown_once":["secret"]"#), "\(kept)")
        #expect(APIIdempotency.kept(#"{"id":7}"#) == #"{"id":7}"#, "nothing to take out: kept as it was")
    }
}
