import Foundation
import KeypadTestSupport
import KioskPadAccess
import Testing

/// `kioskpad verifier serve` as its own process on a free loopback port, for tests of what
/// crosses processes and sockets. ``prepare(pin:extraSettings:)`` writes a directory with a
/// fresh secret, `verifier.yaml` (SQLite in `state/`) and one user (dana, imported from a
/// users file); the initializer starts the server on it.
final class VerifierProcess {
    let directory: URL
    let port: Int
    /// The console's URL (`.../console/`) when the config turns it on.
    let consoleURL: String?
    private let process = Process()
    /// The server's process id.
    var processIdentifier: Int32 { process.processIdentifier }

    var config: String { directory.appendingPathComponent("verifier.yaml").path }
    var secretFile: String { directory.appendingPathComponent("secret").path }
    var secret: WebhookSecret {
        get throws { try WebhookSecret(parsing: String(contentsOfFile: secretFile, encoding: .utf8)) }
    }

    /// A new directory for a verifier: dana with `pin` (imported into its database), a
    /// secret, and `server:` settings plus `extraSettings` (more `server:` lines, each
    /// indented two spaces).
    static func prepare(pin: String, extraSettings: String = "") async throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-verifier-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let hash = try await CLI.run(["pin", "hash", "--user", "dana", "--iterations", "1000"], stdin: pin + "\n").stdout
        try hash.write(to: directory.appendingPathComponent("users"), atomically: true, encoding: .utf8)
        try await CLI.run(["verifier", "secret"]).stdout.write(to: directory.appendingPathComponent("secret"), atomically: true, encoding: .utf8)
        try """
        server:
          listen: 127.0.0.1:0
          state_dir: state
          secret_file: secret

        """.appending(extraSettings).write(to: directory.appendingPathComponent("verifier.yaml"), atomically: true, encoding: .utf8)
        let imported = try await CLI.run([
            "verifier", "import", "--users-file", directory.appendingPathComponent("users").path, "--config",
            directory.appendingPathComponent("verifier.yaml").path,
        ])
        guard imported.status == 0 else { throw CLIFailure(description: "verifier import: \(imported.stderr)") }
        return directory
    }

    /// The users in the database of the verifier in `directory`, as `verifier export` writes them.
    static func exportedUsers(_ directory: URL) async throws -> String {
        let file = directory.appendingPathComponent("exported-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        let exported = try await CLI.run(["verifier", "export", "--users-file", file, "--config", directory.appendingPathComponent("verifier.yaml").path])
        guard exported.status == 0 else { throw CLIFailure(description: "verifier export: \(exported.stderr)") }
        return try String(contentsOfFile: file, encoding: .utf8)
    }

    /// A `kioskpad` command a test needed that did not succeed.
    struct CLIFailure: Error, CustomStringConvertible {
        let description: String
    }

    /// Starts the server on a prepared directory and waits for `verifier listening on ...`;
    /// with `stderr`, its warnings and errors go to that file.
    init(directory: URL, stderr: URL? = nil) async throws {
        self.directory = directory
        process.executableURL = CLI.binary
        process.arguments = [
            "verifier", "serve", "--config", directory.appendingPathComponent("verifier.yaml").path, "--log-level", stderr == nil ? "error" : "warning",
        ]
        let output = Pipe()
        process.standardOutput = output
        if let stderr {
            _ = FileManager.default.createFile(atPath: stderr.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: stderr)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        try process.run()
        let reader = output.fileHandleForReading
        // With the console on, serve prints its line too, in either order.
        let withConsole = (try? String(contentsOf: directory.appendingPathComponent("verifier.yaml"), encoding: .utf8))?.contains("console:") ?? false
        let text = try await onOwnThread {
            var text = ""
            func done() -> Bool { text.contains("verifier listening on") && (!withConsole || text.contains("console listening on")) && text.hasSuffix("\n") }
            while !done() {
                let data = reader.availableData
                if data.isEmpty { break }
                text += String(decoding: data, as: UTF8.self)
            }
            return text
        }
        let lines = text.split(separator: "\n")
        guard let line = lines.first(where: { $0.hasPrefix("verifier listening on") }), let range = line.range(of: "listening on http://127.0.0.1:") else {
            process.terminate()
            throw POSIXError(.ECONNREFUSED)
        }
        port = Int(line[range.upperBound...].prefix { $0.isNumber }) ?? 0
        consoleURL = lines.first { $0.hasPrefix("console listening on ") }.map { String($0.dropFirst("console listening on ".count)) }
    }

    /// The server's `/healthz` JSON.
    func health() async throws -> [String: Any] {
        let body = try await LoopbackHTTP.get(port: port, path: "/healthz").body
        return try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] ?? [:]
    }

    /// Kills it at once (SIGKILL), as a power cut would stop the process: nothing flushed,
    /// no handler run; returns once it is gone (the wait on a thread of its own).
    func killed() async {
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        let process = self.process
        _ = try? await onOwnThread { process.waitUntilExit() }
    }

    /// Stops it (SIGTERM) and returns its exit status (the wait on a thread of its own).
    @discardableResult
    func stopped() async -> Int32 {
        if process.isRunning { process.terminate() }
        let process = self.process
        return
            (try? await onOwnThread {
                process.waitUntilExit()
                return process.terminationStatus
            }) ?? -1
    }

    /// For `defer`: SIGTERM now; the exit is reaped on a thread of its own, and nobody waits.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let process = self.process
        Thread { process.waitUntilExit() }.start()
    }
}
