import Foundation
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Yams

/// The door's config file (`kioskpad run --config FILE`), read with the shared reader.
extension ConfigLoader {
    /// The top-level sections.
    static let sections = [
        "terminal_id", "entry", "lockout", "display", "keypad", "card_reader", "site", "verifier", "state_dir", "journal", "door", "tamper", "feedback",
        "events",
        "metrics", "clock",
    ]

    public static func load(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> KioskPadConfiguration {
        let (text, directory) = try read(path)
        return try parse(yaml: text, source: path, baseDirectory: directory, environment: environment)
    }

    /// Only the GPIO outputs (`door.relay`, `feedback.*`), for `kioskpad door off`: problems in
    /// other sections do not stop it, so a config edited into a broken state can still switch
    /// the door off after a crash. Problems in `door` or `feedback` themselves are errors.
    public static func loadOutputs(
        path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> DaemonConfiguration {
        let root = try compose(try read(path).text, source: path)
        let log = ProblemLog(source: path, overrides: EnvironmentOverrides(environment: environment))
        var daemon = DaemonConfiguration()
        DaemonSection.readOutputs(MappingReader(root, path: "", log: log), into: &daemon)
        guard log.problems.isEmpty else { throw ConfigError(problems: log.problems) }
        return daemon
    }

    /// The config in `yaml`. A door adopted by its site lays the site's settings under it:
    /// `siteSettings` when given (a candidate being checked), else those it stored
    /// (`state_dir/site-settings.json`); the file wins where both speak.
    public static func parse(
        yaml: String, source: String, baseDirectory: String = ".", environment: [String: String] = [:], siteSettings: SiteSettings? = nil
    ) throws -> KioskPadConfiguration {
        var root = try compose(yaml, source: source)
        let settings = siteSettings ?? storedSiteSettings(root, baseDirectory: baseDirectory)
        if let settings { root = settings.laid(under: root) }
        let log = ProblemLog(source: source, overrides: EnvironmentOverrides(environment: environment))
        let top = MappingReader(root, path: "", log: log)
        var terminalID = top.string("terminal_id", default: "kioskpad")
        if !Identifier.isValid(terminalID) {
            log.report("terminal_id", "\(ConfigText.quoted(terminalID)) must be 1-64 of letters, digits, '.', '_' or '-'", at: top.value("terminal_id"))
        }
        var entry = EntrySection.read(top.child("entry"))
        entry.lockout = LockoutSection.read(top.child("lockout"))
        let display = DisplaySection.read(top.child("display"))
        if entry.challenge != .none && !display.texts.challenge.contains("{code}") {
            log.report("display.texts.challenge", "must contain {code} while entry.challenge is on: it is where the code to type back is shown", at: nil)
        }
        let keypad = KeypadSection.read(top.child("keypad"), entry: entry, baseDirectory: baseDirectory)
        if display.driver == .osdp && keypad.driver != .osdp {
            log.report("display.driver", "osdp shows text on the OSDP readers' panels and needs keypad.driver: osdp", at: nil)
        }
        let cardReader = CardReaderSection.read(top, keypad: keypad)
        var daemon = DaemonSection.read(top, baseDirectory: baseDirectory)
        let sites = SiteSection.read(top)
        let siteKey = SiteSection.key(top)
        var doorSite: DoorSite?
        var verifier: VerifierConfiguration
        if let sites, !top.has("verifier") {
            // An adopted door's name and verifier come from its site (kioskpad pair, or run
            // showing its pairing code); a terminal_id of the file's own must agree.
            let state = daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory
            let standing = SiteSection.standing(sites: sites, stateDirectory: state)
            (doorSite, verifier) = standing
            // Deciding offline, when the site's settings ask for it, from replicas signed with the key the site gave.
            if case .http(var http) = verifier, let settings {
                http.offline = settings.offline(site: sites[0], replicaKeys: DoorSite.replicaKeys(stateDirectory: state), log: log)
                verifier = .http(http)
            }
            if case .paired(_, let adopted) = standing.0 {
                if top.has("terminal_id"), terminalID != adopted {
                    log.report(
                        "terminal_id", "is \(ConfigText.quoted(terminalID)) but the site adopted this door as '\(adopted)'; remove terminal_id",
                        at: top.value("terminal_id"))
                }
                terminalID = adopted
            }
        } else {
            verifier = VerifierSection.read(top, baseDirectory: baseDirectory)
        }
        var siteVerifier = false
        if case .http = verifier { siteVerifier = true }
        if entry.enrolment && !siteVerifier {
            log.report("entry.enrolment", "needs verifier.kind: http: a PIN chosen at the door is set by the site server", at: nil)
        }
        daemon.mqtt = MQTTSection.read(top, terminalID: terminalID, baseDirectory: baseDirectory)
        top.finish()
        for unused in log.overrides.unused {
            log.report(unused.path, "unknown key; the variable names no config setting", at: nil)
        }
        guard log.problems.isEmpty else { throw ConfigError(problems: log.problems) }
        var configuration = KioskPadConfiguration(terminalID: terminalID, entry: entry, display: display, keypad: keypad, verifier: verifier, daemon: daemon)
        configuration.cardReader = cardReader
        configuration.site = doorSite
        configuration.siteKey = siteKey
        if doorSite != nil { configuration.siteSettings = settings }
        return configuration
    }

    /// The config file at `path` with `settings` (from the site) in place of those stored:
    /// what `run` would make of it, or the error naming the key.
    public static func check(path: String, with settings: SiteSettings, environment: [String: String] = ProcessInfo.processInfo.environment) throws
        -> KioskPadConfiguration
    {
        let (text, directory) = try read(path)
        return try parse(yaml: text, source: path, baseDirectory: directory, environment: environment, siteSettings: settings)
    }

    /// The settings an adopted door stored, for a file that names only its site.
    static func storedSiteSettings(_ root: Node?, baseDirectory: String) -> SiteSettings? {
        guard case .mapping(let top)? = root, SiteSettings.child("site", of: top) != nil, SiteSettings.child("verifier", of: top) == nil else {
            return nil
        }
        let directory = ConfigValues.resolve(SiteSettings.child("state_dir", of: top)?.string ?? DaemonConfiguration.defaultStateDirectory, baseDirectory)
        guard let text = try? String(contentsOfFile: directory + "/" + DoorSite.settingsFile, encoding: .utf8) else { return nil }
        return SiteSettings(payload: text)
    }
}
