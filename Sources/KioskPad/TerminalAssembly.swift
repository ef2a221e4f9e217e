import Foundation
import KeypadCore
import KeypadDisplay
import KeypadHAL
import KeypadVerifier
import KioskPadConfig

/// A component that could not be built from the config (missing users file, a driver
/// this build or command does not offer), naming the config key.
public struct AssemblyError: Error, CustomStringConvertible {
    public let key: String
    public let message: String
    public var description: String { "\(key): \(message)" }
}

/// Builds the pipeline's parts from a validated configuration.
public enum TerminalAssembly {
    /// The PIN the built-in demo verifier accepts.
    public static let demoPIN = "1234"

    public static func verifier(for configuration: VerifierConfiguration) throws -> any Verifier {
        switch configuration {
        case .demo:
            guard let pin = SecretDigits(ascii: demoPIN) else { preconditionFailure("demo PIN is digits") }
            let hash = try PINHash.make(pin: pin)
            return LocalVerifier(users: UsersFile(users: [UserRecord(name: "demo", pinHash: hash)]))
        case .local(let path):
            do {
                let users = try UsersFile.load(path: path)
                if users.users.isEmpty {
                    throw AssemblyError(key: "verifier.users_file", message: "\(path) lists no users; add lines made by `kioskpad pin hash --user NAME`")
                }
                return LocalVerifier(users: users)
            } catch let error as UsersFile.ParseError {
                throw AssemblyError(key: "verifier.users_file", message: error.description)
            }
        }
    }

    /// A terminal display (ANSI panel or plain text). LCDs arrive with the HD44780 driver.
    public static func terminalDisplay(for configuration: DisplayConfiguration) throws -> any DisplayDriver {
        switch configuration.driver {
        case .ansi: return ANSITerminalDisplay(geometry: configuration.geometry)
        case .plain: return PlainTextDisplay(geometry: configuration.geometry)
        case .hd44780:
            throw AssemblyError(key: "display.driver", message: "hd44780 is not available in this build yet; use ansi or plain")
        }
    }

    public static func composer(for configuration: DisplayConfiguration) -> FrameComposer {
        FrameComposer(geometry: configuration.geometry, texts: configuration.texts, maskCharacter: configuration.maskCharacter)
    }
}
