import Foundation
import KeypadTestSupport
import TestPeers
import Testing

/// An adopted `kioskpad run` door deciding offline holds the site's push channel, and the
/// channel tells it to check in (issue 80): with `server.check_in_seconds` at 600, new
/// settings and a rotation of the door's secret each reach the door within seconds, which
/// only the channel can explain; the door's check-in then fetches them, signed as ever.
extension OSDPDoorEndToEndTests {
    @Test func settingsAndARotationReachAWaitingDoorOnThePushChannel() async throws {
        try await withAdoptedFrontDoor { site, server, adopted in
            let (show, log) = (adopted.shown, adopted.log)
            @Sendable func highest() -> Int {
                Int(
                    (try? String(contentsOf: adopted.state.appendingPathComponent("replica-highest"), encoding: .utf8))?.trimmingCharacters(
                        in: .whitespacesAndNewlines) ?? "") ?? 0
            }
            // Offline decisions from the site's settings: the door starts again with a replica and its push channel.
            let offline = try await site.cli(["verifier", "settings", "set", "verifier.offline.mode=fallback", "verifier.offline.sync_s=300"])
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(await eventually { highest() > 0 }, "a replica after the settings: \(log())")

            // The same site again on the same port, its doors told to check in every 600 s.
            let port = server.port
            await server.stopped()
            let siteConfig = URL(fileURLWithPath: site.config)
            try (try String(contentsOf: siteConfig, encoding: .utf8))
                .replacingOccurrences(of: "  check_in_seconds: 1\n", with: "  check_in_seconds: 600\n")
                .replacingOccurrences(of: "listen: 127.0.0.1:0", with: "listen: 127.0.0.1:\(port)")
                .write(to: siteConfig, atomically: true, encoding: .utf8)
            let again = try await VerifierProcess(directory: site.directory)
            defer { again.stop() }
            #expect(again.port == port)
            // The door's next check-in (a second after its last) learns the 600 s; its channel is open again.
            try await Task.sleep(for: .seconds(4))

            let settingsShown = try await timed(until: { show().contains("Pushed") }) {
                let set = try await site.cli(["verifier", "settings", "set", "display.texts.enter_pin=Pushed"])
                #expect(set.status == 0, "\(set.stderr)")
            }
            let settingsTook = try #require(settingsShown, "the settings did not reach the door by its channel: \(show().suffix(300))\(log())")
            #expect(settingsTook < .seconds(10), "by the channel, not the 600 s check-in: \(settingsTook)")

            // Check-ins the channel wakes are a second apart at least: past that, the rotation's own time.
            try await Task.sleep(for: .milliseconds(1_500))
            let rotated = try await timed(until: { log().contains("the site rotated this door's secret") }) {
                let rotate = try await site.cli(["verifier", "terminal", "rotate", "front-door"])
                #expect(rotate.status == 0, "\(rotate.stderr)")
            }
            let rotationTook = try #require(rotated, "the rotation did not reach the door by its channel: \(log())")
            #expect(rotationTook < .seconds(10), "\(rotationTook)")
            let configPath = site.config
            #expect(
                await eventually { (try? await CLI.run(["verifier", "terminal", "list", "--config", configPath]).stdout.contains("(adopted)")) == true },
                "the door signed with its new secret, which ended the rotation")
            print("push channel: settings set to shown at the door \(settingsTook); rotate to the door holding its new secret \(rotationTook)")
            #expect(!log().contains("whsec_"), "no secret in the log")
        }
    }

    /// How long after `action` started `reached` held (looked at every 20 ms, for 20 s at most); nil: never.
    func timed(until reached: @Sendable () -> Bool, _ action: () async throws -> Void) async throws -> Duration? {
        let start = ContinuousClock.now
        try await action()
        while ContinuousClock.now - start < .seconds(20) {
            if reached() { return ContinuousClock.now - start }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}
