import DoorConfig
import DoorController
import DoorServices
import Foundation
import KioskPadConfig
import KioskPadStorage
import KioskPadThreads
import Synchronization

/// Settings from an adopted door's site, checked with the door's own config checker against
/// its file (``ConfigLoader/check(path:with:environment:)``; the file wins where both speak):
/// refused with the checker's words, or stored (`state_dir/site-settings.json`, mode 600,
/// fsynced) and then run: display texts in place, as a reload does; anything else by starting
/// the door again in place once it is idle. File reads and writes run on `WorkThreads.files`.
final class SiteSettingsApplier: SiteSettingsApplying {
    let configPath: String
    let stateDirectory: String
    let terminalID: String
    let controller: KioskController
    let relay: DoorRelay?
    /// The settings the door runs, and their version.
    private let running: Mutex<(version: Int64, settings: SiteSettings?)>

    init(configPath: String, configuration: KioskPadConfiguration, stateDirectory: String, controller: KioskController, relay: DoorRelay?) {
        self.configPath = configPath
        self.stateDirectory = stateDirectory
        terminalID = configuration.terminalID
        self.controller = controller
        self.relay = relay
        // What the config loader laid under the file at start (no second read of the file).
        running = Mutex((configuration.siteSettingsVersion, configuration.siteSettings))
    }

    var runningVersion: Int64 { running.withLock { $0.version } }

    func apply(payload: String) async -> SiteSettingsOutcome {
        guard let settings = SiteSettings(payload: payload), settings.terminalID == terminalID else {
            return .refused(version: SiteSettings.version(inPayload: payload), reason: "not settings for door \(terminalID)")
        }
        let path = configPath
        let candidate: KioskPadConfiguration
        do {
            candidate = try await WorkThreads.files.run { try ConfigLoader.check(path: path, with: settings) }
        } catch {
            return .refused(version: settings.version, reason: "\(error)")
        }
        let file = stateDirectory + "/" + DoorSite.settingsFile
        do {
            try await WorkThreads.files.run { try DurableFile.replace(path: file, contents: Array(payload.utf8), mode: 0o600) }
        } catch {
            return .refused(version: settings.version, reason: "cannot store them in \(file): \(error)")
        }
        let previous = running.withLock { $0.settings }
        guard settings.changedKeys(since: previous).allSatisfy({ $0.hasPrefix("display.texts.") }) else { return .restartNeeded(version: settings.version) }
        await controller.replaceTexts(candidate.display.texts)
        running.withLock { $0 = (settings.version, settings) }
        return .running(version: settings.version)
    }

    func idle() async -> Bool {
        guard relay?.isEnergised != true else { return false }
        return await controller.isWaitingForInput
    }
}
