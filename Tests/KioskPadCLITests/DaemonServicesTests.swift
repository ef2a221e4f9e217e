import Foundation
import KeypadTestSupport
import Testing

/// The journal, event forwarding and metrics through the real binary (`kioskpad simulate`
/// with a config that enables them), against real loopback servers.
@Suite("Journal, events and metrics end to end", .serialized, .heavy)
struct DaemonServicesTests {
    /// A `kioskpad simulate` whose stdin stays open until `finish()`.
    final class LiveSimulator: @unchecked Sendable {
        // @unchecked: the process and pipes are set up in init and only read afterwards.
        let process = Process()
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()

        init(arguments: [String]) throws {
            process.executableURL = CLI.binary
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errors
            try process.run()
        }

        func type(_ text: String) {
            input.fileHandleForWriting.write(Data(text.utf8))
        }

        /// Closes stdin and waits (on a thread of its own) for the exit and all output.
        func finish() async throws -> (status: Int32, stdout: String, stderr: String) {
            try await onOwnThread { self.finishWaiting() }
        }

        /// Reads stderr until the metrics endpoint names its port (0 if the process ends first).
        func metricsPort() async throws -> Int {
            try await read(errors) { text in
                guard let range = text.range(of: "metrics on http://127.0.0.1:") else { return nil }
                return Int(text[range.upperBound...].prefix { $0.isNumber })
            } ?? 0
        }

        /// Reads stdout until `texts` have appeared in this order (false if the process ends first).
        func output(shows texts: [String]) async throws -> Bool {
            try await read(output) { text in
                var rest = Substring(text)
                for wanted in texts {
                    guard let range = rest.range(of: wanted) else { return nil }
                    rest = rest[range.upperBound...]
                }
                return true
            } ?? false
        }

        /// Reads `pipe` on a thread of its own until `found` answers for all the text so far;
        /// nil if the pipe ends first.
        private func read<T: Sendable>(_ pipe: Pipe, until found: @escaping @Sendable (String) -> T?) async throws -> T? {
            let handle = pipe.fileHandleForReading
            return try await onOwnThread {
                var text = ""
                while true {
                    let data = handle.availableData
                    if data.isEmpty { return nil }
                    text += String(decoding: data, as: UTF8.self)
                    if let answer = found(text) { return answer }
                }
            }
        }

        private func finishWaiting() -> (status: Int32, stdout: String, stderr: String) {
            try? input.fileHandleForWriting.close()
            let out = output.fileHandleForReading.readDataToEndOfFile()
            let err = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
        }
    }

    func waitUntil(_ timeout: TimeInterval = 20, _ condition: () -> Bool) async throws -> Bool {
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(100))
        }
        return condition()
    }

    @Test func recordsQueuedWhileTheEndpointIsDownArriveOnceInOrderAfterARestart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-journal-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let closed = try ClosedPort()  // refuses until the endpoint below starts on it
        defer { withExtendedLifetime(closed) {} }
        let port = closed.port
        let config = directory.appendingPathComponent("terminal.yaml")
        try """
        terminal_id: journal-test
        state_dir: state
        events:
          url: http://127.0.0.1:\(port)/events
        verifier:
          kind: local
          users_file: \(CLI.root.appendingPathComponent("config/users.example").path)
        """.write(to: config, atomically: true, encoding: .utf8)
        // The endpoint is down: 20 attempts are journaled and stay queued.
        let first = try await CLI.run(["simulate", "--config", config.path, "--display", "plain"], stdin: String(repeating: "1234", count: 20))
        #expect(first.status == 0)
        let journal = try String(contentsOf: directory.appendingPathComponent("state/journal.jsonl"), encoding: .utf8)
        #expect(journal.components(separatedBy: "\"type\":\"attempt\"").count - 1 == 20)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("state/journal.cursor").path))
        // The endpoint comes back; a restarted terminal delivers the queue.
        let endpoint = try RecordingHTTPServer(.respond(status: 200, body: "{}"), port: port)
        defer { endpoint.stop() }
        let second = try LiveSimulator(arguments: ["simulate", "--config", config.path, "--display", "plain"])
        let arrived = try await waitUntil { Self.records(endpoint).filter { $0["type"] as? String == "attempt" }.count >= 20 }
        let result = try await second.finish()
        #expect(arrived, "\(result.stderr)")
        // Each request is a JSON array of Standard Webhooks envelopes around the records.
        let envelopes = endpoint.requests.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.body)) as? [[String: Any]]) ?? [] }
        #expect(envelopes.allSatisfy { ($0["type"] as? String)?.hasPrefix("kioskpad.") == true && $0["timestamp"] is String })
        let records = Self.records(endpoint)
        let attempts = records.filter { $0["type"] as? String == "attempt" }
        #expect(attempts.count == 20)
        let sequences = records.compactMap { $0["seq"] as? Int }
        #expect(sequences == sequences.sorted())
        #expect(Set(sequences).count == sequences.count)
        #expect(Set(records.compactMap { $0["id"] as? String }).count == records.count)
        #expect(attempts.allSatisfy { $0["decision"] as? String == "granted" && $0["terminal_id"] as? String == "journal-test" })
        #expect(attempts.allSatisfy { $0["user"] as? String == "demo" })  // who entered, from the users file
        // Each attempt carries the attempt_id that its request carried (a UUID), one per attempt.
        let attemptIDs = attempts.compactMap { $0["attempt_id"] as? String }
        #expect(attemptIDs.count == 20 && Set(attemptIDs).count == 20 && attemptIDs.allSatisfy { UUID(uuidString: $0) != nil })
        // Each request carries its record's id as webhook-id.
        #expect(endpoint.requests.count < records.count)  // batched
        #expect(!redactingMeasuredValues(journal).contains("1234"))
    }

    @Test func aDuressPINGrantsLikeAnyPINAndItsEventIsForwardedBeforeTheGrant() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-duress-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let normal = try await CLI.run(["pin", "hash", "--user", "ana", "--iterations", "1000"], stdin: "2580\n")
        let duress = try await CLI.run(["pin", "hash", "--user", "ana", "--iterations", "1000"], stdin: "2581\n")
        try
            (normal.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + "\n"
            + duress.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ":duress\n")
            .write(to: directory.appendingPathComponent("users"), atomically: true, encoding: .utf8)
        let endpoint = try RecordingHTTPServer(.respond(status: 200, body: "{}"))
        defer { endpoint.stop() }
        try """
        terminal_id: duress-test
        state_dir: state
        events:
          url: http://127.0.0.1:\(endpoint.port)/events
        verifier:
          kind: local
          users_file: users
        """.write(to: directory.appendingPathComponent("terminal.yaml"), atomically: true, encoding: .utf8)
        let config = directory.appendingPathComponent("terminal.yaml").path
        let run = try LiveSimulator(arguments: ["simulate", "--config", config, "--display", "plain"])
        run.type("2581")
        let arrived = try await waitUntil { endpoint.requests.contains { String(decoding: $0.body, as: UTF8.self).contains("\"type\":\"attempt\"") } }
        let result = try await run.finish()
        #expect(arrived, "\(result.stderr)")
        let types = Self.records(endpoint).compactMap { $0["type"] as? String }
        #expect(types.filter { $0 == "duress" || $0 == "attempt" } == ["duress", "attempt"])
        #expect(CLI.frames(result.stdout).contains { $0.contains("Access granted") })
        #expect(!result.stdout.lowercased().contains("duress"))  // never on the display
        #expect(result.stderr.contains("duress PIN used"))  // for the operator's log
    }

    @Test func metricsParseAsPrometheusTextAndHealthzAnswers() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-metrics-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let config = directory.appendingPathComponent("terminal.yaml")
        try """
        metrics:
          listen: 127.0.0.1:0
        verifier:
          kind: local
          users_file: \(CLI.root.appendingPathComponent("config/users.example").path)
        """.write(to: config, atomically: true, encoding: .utf8)
        let simulator = try LiveSimulator(arguments: ["simulate", "--config", config.path, "--display", "plain", "--log-level", "notice"])
        let port = try await simulator.metricsPort()
        #expect(port != 0)
        simulator.type("12349876")
        // Both attempts decided: two verifier latencies observed (checked in full below).
        var metrics = try await Self.fetch("http://127.0.0.1:\(port)/metrics")
        let deadline = ContinuousClock.now + .seconds(20)
        while !metrics.body.contains("kioskpad_verifier_latency_seconds_count 2"), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
            metrics = try await Self.fetch("http://127.0.0.1:\(port)/metrics")
        }
        let health = try await Self.fetch("http://127.0.0.1:\(port)/healthz")
        let elsewhere = try await Self.fetch("http://127.0.0.1:\(port)/")
        _ = try await simulator.finish()
        #expect(health.status == 200)
        #expect(elsewhere.status == 404 && elsewhere.body.contains("/metrics and /healthz"))
        let script = """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            values = {}
            for family in text_string_to_metric_families(sys.stdin.read()):
                for sample in family.samples:
                    values[sample.name + str(sorted(sample.labels.items()))] = sample.value
            wanted = ["kioskpad_keys_total[]", "kioskpad_attempts_total[('result', 'granted')]",
                      "kioskpad_attempts_total[('result', 'denied')]", "kioskpad_verifier_latency_seconds_count[]"]
            print(" ".join("%g" % values[name] for name in wanted))
            """
        let body = metrics.body
        let (status, parsed) = try await onOwnThread {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", "-c", script]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = output
            try process.run()
            input.fileHandleForWriting.write(Data(body.utf8))
            try input.fileHandleForWriting.close()
            let parsed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, parsed)
        }
        #expect(status == 0, "\(parsed)")
        #expect(parsed.trimmingCharacters(in: .whitespacesAndNewlines) == "8 1 1 2")
        let scrubbed = redactingMeasuredValues(metrics.body)  // a latency sum may hold any digits
        #expect(!scrubbed.contains("1234") && !scrubbed.contains("9876"))
    }

    /// The journal records an events endpoint got, unwrapped from their envelopes, in order.
    static func records(_ endpoint: RecordingHTTPServer) -> [[String: Any]] {
        endpoint.requests.flatMap { request -> [[String: Any]] in
            let envelopes = (try? JSONSerialization.jsonObject(with: Data(request.body)) as? [[String: Any]]) ?? []
            return envelopes.compactMap { $0["data"] as? [String: Any] }
        }
    }

    static func fetch(_ url: String) async throws -> (status: Int, body: String) {
        let result = try await CLI.runTool("/usr/bin/curl", ["-s", "-w", "\n%{http_code}", url])
        let lines = result.components(separatedBy: "\n")
        return (Int(lines.last ?? "") ?? 0, lines.dropLast().joined(separator: "\n"))
    }
}
