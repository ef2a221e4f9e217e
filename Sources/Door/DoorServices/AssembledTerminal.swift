import DoorController
import KeypadDisplay
import KioskPadAccess
import Logging
import ServiceLifecycle
import UnixSignals

/// A terminal built from a configuration (by DoorAssembly), ready to run: the controller with its key
/// source, display and verifier, and the services around it (relay, journal, metrics).
/// `kioskpad run` and `kioskpad simulate` differ only in which of these they ask for.
public struct AssembledTerminal: Sendable {
    public let controller: KioskController
    public let services: DaemonServices
    let display: any DisplayDriver
    public let verifier: any Verifier
    /// Services the composition root adds beside the daemon's (an adopted door's check-in).
    public var also: [any Service] = []
    /// Set when the door should start again in place once stopped (settings from its site).
    public let restart = RestartRequest()

    public init(controller: KioskController, services: DaemonServices, display: any DisplayDriver, verifier: any Verifier) {
        self.controller = controller
        self.services = services
        self.display = display
        self.verifier = verifier
    }

    /// Runs until one of `signals` or the end of scripted input; the door goes off first on
    /// the way out, then the display and the verifier client are closed. With `reload`,
    /// each SIGHUP calls it (`run(signals:reloadingFrom:logger:)` reloads the users file and texts).
    public func run(signals: [UnixSignal], reload: (@Sendable () async -> Void)? = nil, logger: Logger) async throws {
        // `start` is the journal's first record of a run: before the mode the replica holds.
        services.bus.publish(.started)
        if let monitor = services.doorMonitor {
            let controller = self.controller
            await monitor.onTamperChange { await controller.tamperChanged($0) }
        }
        // The mode the held replica says, before the first frame (each sync then updates it).
        await services.followHeldReplica()
        let shown = self.controller
        await services.modes.onShow { await shown.modeChanged($0) }
        if let mqtt = services.mqtt {
            let controller = self.controller
            await mqtt.bridge.onRemoteCode { await controller.remoteCode($0) }
        }
        do {
            try await TerminalRunner.run(controller: controller, daemon: services, signals: signals, reload: reload, also: also, logger: logger)
        } catch {
            await close()
            throw error
        }
        await close()
    }

    private func close() async {
        await display.close()
        await verifier.shutdown()
    }
}
