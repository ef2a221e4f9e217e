import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore

/// `kioskpad pin`: PIN tools.
struct PINCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pin", abstract: "PIN tools.", subcommands: [PINHashCommand.self])
}

/// `kioskpad pin hash`: reads a PIN from stdin (no echo on a terminal) and prints a users-file line.
struct PINHashCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash",
        abstract: "Read a PIN from stdin (not echoed on a terminal) and print its users-file line NAME:HASH.",
        discussion: "Example: kioskpad pin hash --user alice >> /etc/kioskpad/users"
    )

    @Option(help: "User name for the line: 1-64 of letters, digits, '.', '_' or '-'.")
    var user = "user"

    @Flag(help: "Ask for the PIN twice and refuse if the two differ (for a person typing it).")
    var confirm = false

    @Option(help: "PBKDF2-SHA256 iterations (\(PINHash.iterationRange)); the default costs ~100 ms per check on a Raspberry Pi 4.")
    var iterations = PINHash.defaultIterations

    func validate() throws {
        guard UsersFile.isValidName(user) else {
            throw ValidationError("--user '\(user)' must be 1-64 of letters, digits, '.', '_' or '-'")
        }
        guard PINHash.iterationRange.contains(iterations) else {
            throw ValidationError("--iterations \(iterations) is out of range \(PINHash.iterationRange)")
        }
    }

    func run() async throws {
        let pin = try SecretReader.readPIN(prompt: "PIN: ")
        if confirm {
            let again = try SecretReader.readPIN(prompt: "PIN again: ")
            let same = pin.hasSameDigits(as: again)
            guard same else { throw UsageError(description: "the two PINs differ; nothing was written") }
        }
        let hash = try PINHash.make(pin: pin, iterations: iterations)
        print(UsersFile.line(name: user, hash: hash))
    }
}
