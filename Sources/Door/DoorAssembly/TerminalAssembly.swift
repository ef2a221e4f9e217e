import DoorConfig
import DoorOSDP
import DoorOfflineReplica
import DoorServices
import DoorVerifierClient
import Foundation
import KeypadDisplay
import KeypadHAL
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import KioskPadEndpoints
import Logging

/// Builds the pipeline's parts from a validated configuration.
public enum TerminalAssembly {
    /// The PIN the built-in demo verifier accepts.
    public static let demoPIN = "1234"

    /// The configured verifier. With `replica` (`verifier.offline.mode: fallback`), the HTTP
    /// verifier stands behind the offline fallback, which decides from the replica when the
    /// site cannot answer (logging to `fallbackLogger`, or `logger`).
    public static func verifier(
        for configuration: VerifierConfiguration, clockTrust: ClockTrust = .synchronised, replica: ReplicaParts? = nil,
        logger: Logger = Logger(label: "kioskpad.verifier"), fallbackLogger: Logger? = nil
    ) throws -> any Verifier {
        switch configuration {
        case .http(let http):
            var settings = try httpSettings(http)
            guard let replica else { return try HTTPVerifier(settings: settings, logger: logger) }
            // A site that refuses the connection is decided without at once, not after the deadline.
            settings.retryRefusedConnections = false
            let online = try HTTPVerifier(settings: settings, logger: logger)
            return OfflineFallbackVerifier(online: online, keeper: replica.keeper, logger: fallbackLogger ?? logger)
        case .demo:
            guard let pin = SecretDigits(ascii: demoPIN) else { preconditionFailure("demo PIN is digits") }
            let hash = try PINHash.make(pin: pin)
            return LocalVerifier(users: UsersFile(users: [UserRecord(name: "demo", pinHash: hash)]))
        case .local(let path):
            // The users file's rules decide with the wall clock only while it counts.
            return LocalVerifier(users: try users(path: path), clockTrusted: { KernelClock.trusted(rtc: clockTrust == .rtc) })
        }
    }

    /// The `/verify` client's settings from `verifier:` (its secret and token read now).
    public static func httpSettings(_ http: HTTPVerifierConfiguration) throws -> HTTPVerifier.Settings {
        let secret = try http.secret.map { try WebhookSecret(configured: $0, key: "verifier.secret") }
        let token = try http.token.map { source in
            let token = try source.text(key: "verifier.token").trimmingCharacters(in: .whitespacesAndNewlines)
            guard !token.isEmpty, !token.contains(where: { $0.isWhitespace }) else {
                throw KeyedError(key: source.configKey("verifier.token"), message: "\(source): the token must be one word")
            }
            return token
        }
        return HTTPVerifier.Settings(
            url: http.url, deadline: http.timeout, secret: secret, bearerToken: token, caFile: http.caFile,
            clientCertificate: http.clientCertificate, clientKey: http.clientKey,
            allowInsecureHTTP: http.allowInsecureHTTP, otherURLs: http.otherURLs)
    }

    /// The users file at `path`, refused (naming `verifier.users_file`) when it cannot be
    /// read, has a bad line, or lists nobody.
    public static func users(path: String) throws -> UsersFile {
        do {
            let users = try UsersFile.load(path: path)
            if users.users.isEmpty {
                throw KeyedError(key: "verifier.users_file", message: "\(path) lists no users", fix: "add lines made by `kioskpad pin hash --user NAME`")
            }
            return users
        } catch let error as UsersFile.ParseError {
            throw KeyedError(key: "verifier.users_file", message: error.description)
        }
    }

    /// The configured display: an ANSI panel, plain text, or an HD44780 LCD on I2C (opened
    /// and probed now, so a missing device stops start-up with an error naming the key).
    public static func display(
        for configuration: DisplayConfiguration, osdpCommands: OSDPCommandQueue? = nil, log: @escaping @Sendable (String) -> Void = { _ in }
    ) throws -> any DisplayDriver {
        switch configuration.driver {
        case .osdp:
            guard let osdpCommands else {
                throw KeyedError(key: "display.driver", message: "osdp needs keypad.driver: osdp (and kioskpad run)")
            }
            return OSDPTextDisplay(geometry: configuration.geometry, commands: osdpCommands)
        case .ansi: return ANSITerminalDisplay(geometry: configuration.geometry)
        case .plain: return PlainTextDisplay(geometry: configuration.geometry)
        case .hd44780:
            let i2c = configuration.i2c ?? I2CDisplayConfiguration(bus: 1, address: 0x27, backlight: true)
            let bus = try LinuxI2CBus(bus: i2c.bus, address: i2c.address)
            return HD44780Display(geometry: configuration.geometry, bus: bus, encoder: encoder(for: i2c), log: log)
        }
    }

    public static func encoder(for i2c: I2CDisplayConfiguration) -> HD44780Encoder {
        let p = i2c.pins
        return HD44780Encoder(
            pins: HD44780PinMap(rs: p[0], rw: p[1], enable: p[2], backlight: p[3], d4: p[4], d5: p[5], d6: p[6], d7: p[7]),
            backlight: i2c.backlight)
    }

    public static func composer(for configuration: DisplayConfiguration) -> FrameComposer {
        FrameComposer(
            geometry: configuration.geometry, texts: configuration.texts,
            maskCharacter: configuration.maskGlyph == .dot ? HD44780Encoder.maskDot : configuration.maskCharacter)
    }
}
