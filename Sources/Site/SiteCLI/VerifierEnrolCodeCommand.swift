import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteAssembly
import SiteCore

extension VerifierUserCommand {
    /// `kioskpad verifier user enrol-code NAME [--ttl 24h]`: a code the user types at a door
    /// with `entry.enrolment` to choose their own PIN. Printed once; only its hash is kept.
    struct EnrolCode: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "enrol-code",
            abstract: "Issue an enrolment code: at a door with entry.enrolment the user types it, then chooses their own PIN twice.",
            discussion: """
                The code is printed once and stored only as a salted hash; it is used up when the PIN is set. \
                Nobody but the user learns the PIN: `user list` and the console show only that one is set. \
                A PIN that is one digit throughout, a run (1234, 9876) or the user's PIN now is refused at the \
                door, and the code stays usable. Revoke an unused code on the console's Codes page.
                """)
        @Argument(help: "User name (a user in the verifier's database).") var name: String
        @Option(help: "How long the code is valid: 90s, 10m, 2h (up to 168h).") var ttl: String = "24h"
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            guard let seconds = VerifierCodeIssueCommand.parseTTL(ttl) else {
                throw UsageError(description: "--ttl '\(ttl)' must be a number with s, m or h, from 30s to 168h")
            }
            let settings = try target.settings()
            let lookupKey = try VerifierAssembly.lookupKey(settings)
            let expires = Date().addingTimeInterval(seconds)
            let code = try await target.withStore(settings) { opened in
                try await VerifierUserCommand.applying(opened) {
                    try await CodeIssuing(
                        administration: opened.administration, changes: AdministratorChanges(store: opened.store, by: .commandLine()),
                        codeLength: settings.codeLength, lookupKey: lookupKey
                    ).issueEnrolment(user: name, expires: expires)
                }
            }
            writeLine(code)
        }
    }
}
