import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `kioskpad verifier ...`: the site server and its tools live in a second executable,
/// `kioskpad-verifier` beside `kioskpad` (package kioskpad-verifier), so a door's process
/// maps no server, SQL or console code. `Main` hands these arguments over before parsing;
/// this type puts the command in `kioskpad --help`.
struct VerifierForwardCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verifier",
        abstract: "The reference verifier server and its tools (runs kioskpad-verifier; see kioskpad verifier --help).")

    @Argument(parsing: .captureForPassthrough, help: "A verifier command and its options, e.g. serve --config FILE.")
    var arguments: [String] = []

    func run() throws {
        VerifierExecutable.exec(arguments: arguments)
    }
}

/// Finds `kioskpad-verifier` next to this executable and replaces this process with it (same
/// PID, so systemd's notify socket and a test's signals reach the server).
enum VerifierExecutable {
    static let name = "kioskpad-verifier"

    /// The executable's path: in the directory of the running `kioskpad` (symbolic links resolved).
    static func path() -> String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return URL(fileURLWithPath: me).deletingLastPathComponent().appendingPathComponent(name).path
    }

    static func exec(arguments: [String]) -> Never {
        let path = path()
        let argv = [path] + arguments
        var cArguments = argv.map { strdup($0) }
        cArguments.append(nil)
        execv(path, cArguments)
        let reason = String(cString: strerror(errno))
        let text: String
        if errno == ENOENT {
            text =
                "kioskpad: verifier: the site server is not installed: no \(path) (install the kioskpad-verifier package, or deploy/install.sh from source)\n"
        } else {
            text = "kioskpad: verifier: cannot run \(path): \(reason)\n"
        }
        FileHandle.standardError.write(Data(text.utf8))
        exit(1)
    }
}
