import Foundation
import KeypadTestSupport
import Testing

/// The site's push channel through real processes: a running door (`kioskpad simulate`,
/// which holds the channel as `kioskpad run` does) whose poll is 5 minutes away learns of a
/// user disabled on the site at once, takes the delta, and refuses that user offline; with
/// the site stopped (its port refusing), each offline decision comes at once, not after the
/// door's 5 s `timeout_s`, and its record says why the site gave no answer.
@Suite("Push channel end to end", .serialized, .heavy)
struct PushChannelEndToEndTests {
    @Test(arguments: AccessRulesEndToEndTests.Store.allCases)
    func aUserDisabledOnTheSiteIsRefusedOfflineWithoutWaitingForThePoll(_ store: AccessRulesEndToEndTests.Store) async throws {
        let site = try await AccessRulesEndToEndTests.Site(store)
        try await site.closing {
            let door = try await OfflineDoorEndToEndTests.Door(site)
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            try door.configure(port: server.port, syncSeconds: 300, timeoutSeconds: 5)
            let synced = try await door.credentials("sync")
            #expect(synced.status == 0 && synced.stdout.contains(": 2 users"), "\(synced.stdout)\(synced.stderr)")
            let arguments = ["simulate", "--config", door.config, "--display", "plain", "--log-level", "info"]
            // A door holding the channel stops when told to, not when the site's 25 s wait ends.
            let first = try DaemonServicesTests.LiveSimulator(arguments: arguments)
            try await Task.sleep(for: .seconds(2))
            let stopping = ContinuousClock.now
            let stopped = try await first.finish()
            let stopTook = ContinuousClock.now - stopping
            #expect(stopped.status == 0 && stopTook < .seconds(10), "\(stopTook) \(stopped.stderr)")
            print("push channel: a door holding the channel stopped in \(stopTook)")
            let running = try DaemonServicesTests.LiveSimulator(arguments: arguments)
            let replicaFile = door.replica
            let held = { (try? String(contentsOf: replicaFile, encoding: .utf8)) ?? "" }
            let before = held()
            // The door's first poll runs as it starts: a change committed before it would come
            // by that poll (a run here saw `by=poll`), not by the channel this test is about.
            try await Task.sleep(for: .seconds(2))

            let disabled = try await site.cli(["verifier", "user", "disable", "bob"])
            #expect(disabled.status == 0, "\(disabled.stderr)")
            let committed = ContinuousClock.now
            // Far inside the poll's 5 minutes: only the push channel brings it this soon.
            var arrived: Duration?
            while ContinuousClock.now - committed < .seconds(60) {
                if held() != before && held().contains("\"format\":2") {
                    arrived = ContinuousClock.now - committed
                    break
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(arrived != nil, "the delta never reached the running door")
            print("push channel: the delta was on the door's disk \(arrived.map { "\($0)" } ?? "never") after the command returned")

            // The site stops: bob is refused from the replica, dana still let in.
            await server.stopped()
            running.type("1470")
            #expect(try await running.output(shows: ["Access denied"]))
            running.type("3691")
            #expect(try await running.output(shows: ["Access granted"]))
            let result = try await running.finish()
            #expect(result.stderr.contains("by=push") || result.stderr.contains("\"by\":\"push\"") || result.stderr.contains("by: push"), "\(result.stderr)")
            let offline = try door.attempts()
            #expect(offline.map { $0["decision"] as? String ?? "" } == ["denied", "granted"], "\(offline)")
            #expect(offline.allSatisfy { $0["offline"] as? Bool == true && ($0["site_unreachable"] as? String)?.isEmpty == false }, "\(offline)")
            print("push channel: offline decisions with the site's port refusing took \(offline.map { $0["latency_ms"] as? Int ?? -1 }) ms")
            // Refused at once: not the deadline's 5,000 ms (a pool retrying the refused port took all of it).
            #expect(offline.allSatisfy { ($0["latency_ms"] as? Int ?? .max) < 2_500 }, "\(offline)")
        }
    }
}
