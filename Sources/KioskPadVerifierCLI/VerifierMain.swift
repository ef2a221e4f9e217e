import KioskPadCommandLine

/// Entry point of `kioskpad-verifier`, the site server's executable: `kioskpad verifier ARGS`
/// runs it with ARGS, and it can be run directly the same way.
@main
enum VerifierMain {
    static func main() {
        CommandMain.run(VerifierCommand.self)
    }
}
