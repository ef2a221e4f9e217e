import DoorConfig
import DoorServices
import KioskPadAccess
import KioskPadConfig
import KioskPadCore
import Logging
import UnixSignals

extension AssembledTerminal {
    /// ``run(signals:reload:logger:)`` where each SIGHUP reloads from `configPath` (the config
    /// file's path): ``reload(from:logger:)``.
    public func run(signals: [UnixSignal], reloadingFrom configPath: String, logger: Logger) async throws {
        let terminal = self
        try await run(signals: signals, reload: { await terminal.reload(from: configPath, logger: logger) }, logger: logger)
    }

    /// Re-reads the config file at `path` and applies its users file (local verifier) and
    /// display texts, without touching the keypad, the door or the journal. Anything wrong
    /// (the config, the users file) refuses the whole reload: the error is logged and the
    /// running users and texts stay. Other settings take effect at the next start.
    @discardableResult
    public func reload(from path: String, logger: Logger) async -> Bool {
        let users: UsersFile?
        let configuration: KioskPadConfiguration
        do {
            configuration = try ConfigLoader.load(path: path)
            if case .local(let usersPath) = configuration.verifier, verifier is LocalVerifier {
                users = try TerminalAssembly.users(path: usersPath)
            } else {
                users = nil
            }
        } catch {
            logger.error("reload refused; the running users and texts stay", metadata: ["error": "\(error)"])
            return false
        }
        if let users, let local = verifier as? LocalVerifier { local.replaceUsers(users) }
        await controller.replaceTexts(configuration.display.texts)
        var metadata: Logger.Metadata = ["config": "\(path)"]
        if let users { metadata["users"] = "\(users.users.count)" }
        logger.notice("reloaded the users file and texts; other settings apply at the next start", metadata: metadata)
        return true
    }
}
