import KioskPadCommandLine

/// Entry point of `kioskpad-verifier`, the site server's executable: `kioskpad verifier ARGS`
/// runs it with ARGS, and it can be run directly the same way. It runs on Swift's standard
/// executors, which grow their pool when work blocks; the door's quiet ones do not.
@main
enum VerifierMain {
    static func main() {
        CommandMain.run(VerifierCommand.self, executors: .standard)
    }
}
