import Foundation
import KeypadTestSupport
import TestPeers
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A door whose config names only its site: `kioskpad run` with libosdp's reader starts
/// unpaired, shows its pairing code on its display (not in its log), is adopted with
/// `verifier terminal adopt`, and goes live by itself (the same process started again): a PIN
/// typed at the reader is then decided by the site, signed with the door's own secret. The
/// site then rotates the door's secret while PINs are typed (none refused; the old secret
/// stops working; the door's events, signed with its secret, all reach the site), and retires
/// the door (refused at once).
extension OSDPDoorEndToEndTests {
    @Test func aDoorNamingOnlyItsSiteShowsItsCodeIsAdoptedAndGoesLiveByItself() async throws {
        try await withAdoptedFrontDoor { site, server, adopted in
            let (door, peer, state, shown, log) = (adopted.process, adopted.peer, adopted.state, adopted.shown, adopted.log)

            // Settings from the site: a text changes in place; settings the door's own checker
            // refuses are kept off, with its reason at the site; settings that need a fresh start
            // start the door again in place (same process id) once it is idle.
            let siteConfigPath = site.config
            @Sendable func settingsShown() async -> String {
                (try? await CLI.run(["verifier", "settings", "show", "--config", siteConfigPath]).stdout) ?? ""
            }
            #expect(try await site.cli(["verifier", "settings", "set", "display.texts.enter_pin=PIN please"]).status == 0)
            #expect(await eventually { shown().contains("PIN please") }, "\(shown().suffix(300))\(log())")
            #expect(await eventually { await settingsShown().contains("front-door: runs version 1") }, "\(log())")
            // A value out of the door's ranges is refused at the site already; what only the
            // door can refuse is one its file makes wrong: a lockout of 1,000 s against the
            // file's max_lockout_s (it gives none: 900 s).
            let bad = try await site.cli(["verifier", "settings", "set", "lockout.lockout_s=1000"])
            #expect(bad.status == 0 && bad.stdout.hasPrefix("settings version 2"), "\(bad.stdout)\(bad.stderr)")
            #expect(await eventually { await settingsShown().contains("front-door: runs version 1; refused version 2: ") }, "\(log())")
            let refusal = await settingsShown()
            #expect(refusal.contains("lockout.max_lockout_s"), "the door's reason names the key: \(refusal)")
            #expect(try await site.cli(["verifier", "settings", "unset", "lockout.lockout_s"]).status == 0)
            #expect(try await site.cli(["verifier", "settings", "set", "entry.result_s=2"]).status == 0)
            #expect(await eventually { log().contains("terminal starting again with the site's settings") }, "\(log())")
            #expect(await eventually { await settingsShown().contains("front-door: runs version 4") }, "\(log())")
            // At least twice online (three parts): once more when a reader message was dropped
            // under load (a full run saw a sequence drop and four).
            #expect(
                await eventually { self.journal(state).components(separatedBy: "\"type\":\"reader_online\"").count >= 3 },
                "the reader comes back after the restart: \(log())")
            #expect(kill(door.pid, 0) == 0, "started again in place: the same process")

            // The site rotates the door's secret while bob keeps typing: no attempt is refused.
            let secretFile = state.appendingPathComponent("site.secret")
            let oldSecret = site.directory.appendingPathComponent("old.secret")
            try FileManager.default.copyItem(at: secretFile, to: oldSecret)
            func granted() -> Int { attempts(state).filter { $0.contains("\"decision\":\"granted\"") }.count }
            for typed in 2...7 {
                if typed == 4 {
                    let rotate = try await site.cli(["verifier", "terminal", "rotate", "front-door"])
                    #expect(rotate.status == 0, "\(rotate.stderr)")
                }
                peer.send("keys 1470")
                #expect(await eventually { self.attempts(state).count == typed }, "\(journal(state))\(log())")
            }
            #expect(await eventually { log().contains("the site rotated this door's secret") }, "\(log())")
            #expect(granted() == 7 && attempts(state).count == 7, "every attempt granted through the rotation: \(attempts(state))")
            #expect(try await site.cli(["verifier", "terminal", "list"]).stdout.contains("front-door own secret since"))
            #expect(
                await eventually { (try? await CLI.run(["verifier", "terminal", "list", "--config", siteConfigPath]).stdout.contains("(adopted)")) == true },
                "rotation finished")
            // Its events, signed with its site.secret, follow the rotation: every attempt reaches the
            // site, one made after the rotation ended too, and none is dead-lettered (the old
            // secret's 401 would move it there).
            #expect(await eventually { log().contains("events are signed with the door's new secret") }, "\(log())")
            peer.send("keys 1470")
            #expect(await eventually { self.attempts(state).count == 8 }, "\(journal(state))\(log())")
            let attemptIDs = Set(
                attempts(state).compactMap { line in
                    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["attempt_id"] as? String
                })
            #expect(attemptIDs.count == 8)
            let siteDirectory = site.directory
            @Sendable func storedAttemptIDs() async -> Set<String> {
                let stored = (try? await AccessRulesEndToEndTests.Site.sqliteEventRecords(siteDirectory)) ?? []
                return Set(stored.compactMap { $0["attempt_id"] as? String })
            }
            #expect(await eventually { attemptIDs.isSubset(of: await storedAttemptIDs()) }, "\(log())")
            #expect(!FileManager.default.fileExists(atPath: state.appendingPathComponent("journal.deadletter.jsonl").path), "\(log())")
            let mode = try FileManager.default.attributesOfItem(atPath: secretFile.path)[.posixPermissions] as? Int
            let newText = try String(contentsOf: secretFile, encoding: .utf8)
            let oldText = try String(contentsOf: oldSecret, encoding: .utf8)
            #expect(mode == 0o600 && newText != oldText)
            #expect(try await site.simulate("1470", at: "front-door", port: server.port, secretFile: secretFile.path).contains("Access granted"))
            // Signed after the switch (a second on, as timestamps count), the old secret is refused.
            try await Task.sleep(for: .milliseconds(1_100))
            #expect(!(try await site.simulate("1470", at: "front-door", port: server.port, secretFile: oldSecret.path)).contains("Access granted"))

            // Retired: refused at once; the door stays shut.
            #expect(try await site.cli(["verifier", "terminal", "retire", "front-door"]).status == 0)
            peer.send("keys 1470")
            #expect(await eventually { self.attempts(state).count == 9 }, "\(journal(state))")
            #expect(granted() == 8, "a retired door is refused: \(attempts(state).last ?? "")")
            #expect(!log().contains("whsec_") && !journal(state).contains("whsec_"), "no secret in the log or journal")
        }
    }

    /// `body` with a site on SQLite whose doors check in every second, its server, and a door
    /// adopted by it (``adoptFrontDoor(_:_:)``), all stopped after.
    func withAdoptedFrontDoor(_ body: (AccessRulesEndToEndTests.Site, VerifierProcess, AdoptedDoor) async throws -> Void) async throws {
        let site = try await AccessRulesEndToEndTests.Site(.sqlite)
        try await site.closing {
            try checkInEverySecond(site)
            let server = try await VerifierProcess(directory: site.directory)
            defer { server.stop() }
            let adopted = try await adoptFrontDoor(site, server)
            defer { _ = adopted.process.terminate() }
            try await body(site, server, adopted)
        }
    }

    /// A site of two instances named in `site:`, the first stopped: the door is adopted through
    /// the second, and then asks it (bob's PIN granted online, in ``adoptFrontDoor(_:_:before:)``).
    @Test func aDoorNamingTwoSiteAddressesIsAdoptedThroughTheOneThatAnswers() async throws {
        let site = try await AccessRulesEndToEndTests.Site(.sqlite)
        try await site.withStoppedAndRunningInstance { stoppedPort, server in
            let adopted = try await adoptFrontDoor(site, server, before: [stoppedPort])
            defer { _ = adopted.process.terminate() }
            #expect(try await site.cli(["verifier", "terminal", "list"]).stdout.contains("front-door"))
        }
    }

    /// Doors of `site` check in every second (the default is a minute), so what the site has
    /// for them (a rotation, settings) is picked up at once.
    func checkInEverySecond(_ site: AccessRulesEndToEndTests.Site) throws {
        let siteConfig = URL(fileURLWithPath: site.config)
        try (try String(contentsOf: siteConfig, encoding: .utf8)).replacingOccurrences(
            of: "  secret_file: secret\n", with: "  secret_file: secret\n  check_in_seconds: 1\n"
        ).write(to: siteConfig, atomically: true, encoding: .utf8)
    }

    /// What ``adoptFrontDoor(_:_:)`` started: the door's process, its reader, its state
    /// directory, what it showed on its display and what it logged.
    struct AdoptedDoor {
        let process: SpawnedChild
        let peer: OSDPPeer
        let state: URL
        let shown: @Sendable () -> String
        let log: @Sendable () -> String
    }

    /// A `kioskpad run` door on libosdp's reader whose config names only `site`'s server (and
    /// forwards its events there, signed with its own `site.secret`):
    /// started unpaired, its code read from its display (never its log), adopted as
    /// front-door with `verifier terminal adopt`, live by itself, and bob's PIN granted by the
    /// site. The caller terminates the process. `before`: ports named ahead of the server's in
    /// `site:` (instances that are stopped).
    func adoptFrontDoor(_ site: AccessRulesEndToEndTests.Site, _ server: VerifierProcess, before: [Int] = []) async throws -> AdoptedDoor {
        let (peer, keyFile) = try await secureReader(keyFileIn: site.directory)
        let state = site.directory.appendingPathComponent("unpaired-state")
        let config = site.directory.appendingPathComponent("unpaired-door.yaml")
        try """
        site: [\((before + [server.port]).map { "\"http://127.0.0.1:\($0)\"" }.joined(separator: ", "))]
        state_dir: \(state.path)
        events:
          urls: [\((before + [server.port]).map { "\"http://127.0.0.1:\($0)/v1/events\"" }.joined(separator: ", "))]
          secret_file: \(state.appendingPathComponent("site.secret").path)
        \(secureReaderLines(peer, keyFile: keyFile))
        display: {driver: plain, columns: 16, rows: 2}
        """.write(to: config, atomically: true, encoding: .utf8)
        let check = try await CLI.run(["config", "check", config.path])
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let out = site.directory.appendingPathComponent("door.out")
        let err = site.directory.appendingPathComponent("door.err")
        let door = try SpawnedChild([CLI.binary.path, "run", "--config", config.path], stdout: .file(out.path), stderr: .file(err.path))
        let shown: @Sendable () -> String = { (try? String(contentsOf: out, encoding: .utf8)) ?? "" }
        let log: @Sendable () -> String = { (try? String(contentsOf: err, encoding: .utf8)) ?? "" }
        do {
            #expect(await eventually { shown().contains("Pair this door:") }, "\(shown())\(log())")
            let status = try await CLI.run(["pair", "status", "--state-dir", state.path])
            let code = String(status.stdout.dropFirst("waiting: pairing code ".count).prefix(14))
            #expect(status.stdout.hasPrefix("waiting: pairing code ") && shown().contains(code), "\(status.stdout)\(shown())")
            #expect(log().contains("waiting to be adopted") && !log().contains(code.suffix(9)), "the code is on the display, never in the log: \(log())")
            let adopted = try await site.cli(["verifier", "terminal", "adopt", code, "--name", "front-door"])
            #expect(adopted.status == 0, "\(adopted.stderr)")
            #expect(await eventually { self.journal(state).contains("\"type\":\"reader_online\"") }, "\(log())\(journal(state))")
            #expect(shown().contains("Paired as") && log().contains("adopted by the site"), "\(shown())")
            // bob may open front-door only: the door is front-door now, and asks the site.
            peer.send("keys 1470")
            #expect(
                await eventually { self.attempted(state, "\"kind\":\"pin\"", "\"decision\":\"granted\"", "\"user\":\"bob\"") },
                "\(journal(state))\(log())")
            #expect(try await CLI.run(["pair", "status", "--state-dir", state.path]).stdout.hasPrefix("paired: "))
            return AdoptedDoor(process: door, peer: peer, state: state, shown: shown, log: log)
        } catch {
            _ = door.terminate()
            throw error
        }
    }
}
