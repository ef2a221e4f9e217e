import Foundation
import KeypadTestSupport
import TestPeers
import Testing

/// An adopted door (`kioskpad run` on libosdp's reader) told by its site's settings to decide
/// offline keeps a replica signed with the site's replica key. The site then rotates that key
/// while the door runs: the door learns the next key at a check-in and says so, the rotation
/// ends (`replica-key finish`), the door drops the old key, takes the next replica and
/// settings signed with the new one, and with the site stopped decides offline from that
/// replica.
extension OSDPDoorEndToEndTests {
    @Test func anAdoptedDoorDecidesOfflineAndFollowsARotationOfTheReplicaKey() async throws {
        try await withAdoptedFrontDoor { site, server, adopted in
            let (peer, state, shown, log) = (adopted.peer, adopted.state, adopted.shown, adopted.log)
            let siteFile = state.appendingPathComponent("site.json")
            @Sendable func siteKeys() -> [String: String] {
                (try? JSONSerialization.jsonObject(with: Data(contentsOf: siteFile))) as? [String: String] ?? [:]
            }
            @Sendable func highest() -> Int {
                Int(
                    (try? String(contentsOf: state.appendingPathComponent("replica-highest"), encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                        ?? "") ?? 0
            }
            let firstKey = try #require(siteKeys()["replica_public_key"])

            // Offline decisions from the site's settings: the door starts again with them and syncs a replica.
            let offline = try await site.cli(["verifier", "settings", "set", "verifier.offline.mode=fallback", "verifier.offline.sync_s=5"])
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(await eventually { highest() > 0 }, "a replica after the settings: \(log())")

            // The rotation: the door learns the next key and says so; only then may it end.
            let rotate = try await site.cli(["verifier", "replica-key", "rotate"])
            #expect(rotate.status == 0, "\(rotate.stderr)")
            let next = rotate.stdout.dropFirst("next replica key ".count).components(separatedBy: ": adopted doors").first ?? ""
            #expect(next.hasPrefix("ed25519:") && next != firstKey, "\(rotate.stdout)")
            #expect(try await site.cli(["verifier", "replica-key", "rotate"]).status == 2, "one rotation at a time")
            #expect(await eventually { log().contains("trusts the next one as well") }, "\(log())")
            #expect(siteKeys()["replica_public_key_next"] == next && siteKeys()["replica_public_key"] == firstKey, "\(siteKeys())")
            let configPath = site.config
            #expect(
                await eventually {
                    (try? await CLI.run(["verifier", "replica-key", "show", "--config", configPath]).stdout.contains("holding it: front-door")) == true
                })
            let versionBefore = highest()
            let finish = try await site.cli(["verifier", "replica-key", "finish"])
            #expect(finish.status == 0, "\(finish.stdout)\(finish.stderr)")
            #expect(await eventually { log().contains("trusts only the new one") }, "\(log())")
            #expect(siteKeys()["replica_public_key"] == next && siteKeys()["replica_public_key_next"] == nil, "\(siteKeys())")
            #expect(await eventually { highest() > versionBefore }, "a replica signed with the new key is taken: \(log())")
            #expect(!log().contains("replica sync failed") && !log().contains("do not carry the site's signature"), "\(log())")
            #expect(try await site.cli(["verifier", "replica-key", "finish"]).status == 2, "nothing left to finish")
            // Settings signed with the new key are taken.
            #expect(try await site.cli(["verifier", "settings", "set", "display.texts.enter_pin=New key"]).status == 0)
            #expect(await eventually { shown().contains("New key") }, "\(shown().suffix(300))\(log())")

            // The site stops: bob is decided offline, from the replica signed with the new key. The
            // wait is for its exit: while it shuts down it still answers on connections already open.
            await server.stopped()
            peer.send("keys 1470")
            #expect(
                await eventually { self.attempted(state, "\"decision\":\"granted\"", "\"offline\":true") }, "\(journal(state))\(log())")
        }
    }
}
