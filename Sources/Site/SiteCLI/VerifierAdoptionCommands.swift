import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteCore

extension VerifierTerminalCommand {
    /// `terminal waiting`: the doors that announced themselves to be adopted.
    struct Waiting: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the doors waiting to be adopted: the code's first four digits, address, hardware, since, state (never a code).")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let doors = try await target.administer { try await $0.waitingDoors(now: Date()) }
            if doors.isEmpty { writeLine("no door is waiting to be adopted") }
            for door in doors {
                writeLine(
                    "\(door.tag)-....-....\t\(door.address)\t\(door.hardware.isEmpty ? "-" : door.hardware)\tsince \(UTCTimestamp.rfc3339(door.announced))\t\(door.state.rawValue)\(door.terminalID.map { " as \($0)" } ?? "")"
                )
            }
        }
    }

    /// `terminal adopt --name NAME`: adopts the waiting door whose display shows the code typed at the prompt (or given on stdin).
    struct Adopt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Adopt the door whose display shows CODE as NAME: its own secret and the replica key are sealed to it with the code.",
            discussion:
                "Type the twelve digits the unpaired door shows (SSSS-XXXX-XXXX) at the prompt, or give them on stdin: not as an argument, where ps and the shell's history would keep them. The door picks the delivery up within seconds."
        )
        @Argument(help: "The code, as before (kept out of the help: it lands in ps and shell history; type it at the prompt instead).")
        var code: String?
        @Option(help: "The door's terminal_id at this site.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func validate() throws {
            if let code, PairingCode(typed: code) == nil { throw ValidationError("CODE must be the twelve digits the door shows (SSSS-XXXX-XXXX)") }
            guard Identifier.isValid(name) else { throw ValidationError("--name '\(name)' must be 1-64 of letters, digits, '.', '_' or '-'") }
        }

        func run() async throws {
            let typed: String
            if let code {
                FileHandle.standardError.write(
                    Data("kioskpad: a code given as an argument is kept by ps and your shell's history; next time type it at the prompt\n".utf8))
                typed = code
            } else {
                var bytes = SecretReader.readLine(prompt: "Code the door shows: ", limit: 64)
                typed = String(decoding: bytes, as: UTF8.self)
                for index in bytes.indices { bytes[index] = 0 }
            }
            guard let code = PairingCode(typed: typed) else {
                throw ValidationError("the code must be the twelve digits the door shows (SSSS-XXXX-XXXX)")
            }
            let door = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) {
                    let changes = AdministratorChanges(store: opened.store, by: .commandLine())
                    let key = try await opened.replica.publicKey()
                    return try await DoorAdoption(pairing: opened.administration, changes: changes, replicaPublicKey: key.description).adopt(
                        code: code, terminalID: name)
                }
            }
            writeLine("\(name): sealed for the door at \(door.address); it picks it up at its next poll (`terminal waiting` shows paired)")
        }
    }
}

extension VerifierTerminalCommand {
    /// `terminal rotate ID`: a new secret for an adopted door, picked up at its next check-in.
    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Give adopted door ID a new secret without touching it: it picks it up at its next check-in (a minute at most).",
            discussion: """
                The site accepts the old and the new secret until the door first signs with the new one, so no \
                attempt is refused on the way; `terminal list` shows the door as rotating until then.
                """)
        @Argument(help: "The door's terminal_id.") var id: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await VerifierTerminalCommand.keyChange(target) { try await $0.rotate(terminalID: id) }
            writeLine("\(id): a new secret waits for the door's next check-in; its old secret works until the door uses the new one, for 7 days at most")
        }
    }

    /// `terminal retire ID`: the door is refused from now on and its alerts stop.
    struct Retire: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Retire door ID: every request naming it is refused at once, whatever it signs with, and its alerts stop.",
            discussion: "Its records stay in the entries and the audit log. A retired door's name stays refused.")
        @Argument(help: "The door's terminal_id.") var id: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await VerifierTerminalCommand.keyChange(target) { try await $0.retire(terminalID: id) }
            writeLine("\(id): retired; its requests are refused from now on")
        }
    }

    /// A rotation or retirement through ``DoorKeyChanges``, by the command line's user.
    static func keyChange(_ target: VerifierDatabaseTarget, _ change: @escaping @Sendable (DoorKeyChanges) async throws -> Void) async throws {
        try await target.withStore { opened in
            try await VerifierUserCommand.applying(opened) {
                try await change(DoorKeyChanges(administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine())))
            }
        }
    }
}
