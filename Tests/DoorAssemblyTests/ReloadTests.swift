import DoorAssembly
import DoorConfig
import Foundation
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import Logging
import Testing

/// SIGHUP's reload: the users file and texts are replaced, or, if anything is wrong, kept.
@Suite("Reload of the users file")
struct ReloadTests {
    func attempt(_ pin: String) -> VerificationAttempt {
        VerificationAttempt(terminalID: "t", kind: .pin, value: SecretDigits(ascii: pin)!)
    }

    func line(_ name: String, _ pin: String) throws -> String {
        "\(name):\(try PINHash.make(pin: SecretDigits(ascii: pin)!, iterations: 1000))\n"
    }

    @Test func aUserAddedToTheFileCanEnterAfterAReloadAndABrokenFileIsRefused() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-reload-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let users = directory.appendingPathComponent("users")
        let config = directory.appendingPathComponent("terminal.yaml").path
        try line("ana", "1111").write(to: users, atomically: true, encoding: .utf8)
        try "verifier:\n  kind: local\n  users_file: users\n".write(toFile: config, atomically: true, encoding: .utf8)
        let terminal = try TerminalAssembly.simulatedTerminal(try ConfigLoader.load(path: config), logger: Logger(label: "test"))
        let logger = Logger(label: "test")
        #expect(await terminal.verifier.verify(attempt("1357")) == .denied())

        try (line("ana", "1111") + line("bob", "1357")).write(to: users, atomically: true, encoding: .utf8)
        #expect(await terminal.reload(from: config, logger: logger))
        #expect(await terminal.verifier.verify(attempt("1357")) == .granted(user: "bob"))

        for broken in ["bob:not-a-hash\n", "", "entry:\n  max_lenght: 6\n"] {
            if broken.hasPrefix("entry") {
                try (broken + "verifier:\n  kind: local\n  users_file: users\n").write(toFile: config, atomically: true, encoding: .utf8)
            } else {
                try broken.write(to: users, atomically: true, encoding: .utf8)
            }
            #expect(await !terminal.reload(from: config, logger: logger), "\(broken)")
            #expect(await terminal.verifier.verify(attempt("1357")) == .granted(user: "bob"), "kept after: \(broken)")
            #expect(await terminal.verifier.verify(attempt("1111")) == .granted(user: "ana"))
        }
    }
}
