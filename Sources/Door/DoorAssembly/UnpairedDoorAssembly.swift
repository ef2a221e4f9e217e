import DoorConfig
import DoorServices
import Foundation
import KeypadDisplay
import KioskPadAccess
import KioskPadCore
import Logging

/// `kioskpad run` for a door that names only its site (`site:`, no `verifier:`) and has no
/// secret from it yet: it announces itself, shows its pairing code on its own display (never
/// in a log: `kioskpad pair status` prints it), and waits to be adopted, starting over with
/// a new code when one runs out and retrying every 10 s while the site cannot be reached.
/// Nothing else of the door runs meanwhile: no keypad, no relay (`door off` ran before).
/// Returns once the site's secret is stored; the caller then starts the door from its config.
public enum UnpairedDoorAssembly {
    public static let retryAfterFailure: Duration = .seconds(10)
    /// How long one code is shown before the door announces itself again.
    public static let codeLifetime: Duration = .seconds(900)

    /// `sites`: the site's addresses (`site:`), asked in order.
    public static func waitForAdoption(_ configuration: KioskPadConfiguration, sites: [String], logger: Logger) async throws {
        let site = sites[0]
        let stateDirectory = configuration.daemon.stateDirectory ?? DaemonConfiguration.defaultStateDirectory
        try FileManager.default.createDirectory(atPath: stateDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // An OSDP reader's panel needs the OSDP line running; such a door shows nothing here.
        let display: (any DisplayDriver)? =
            configuration.display.driver == .osdp ? nil : try TerminalAssembly.display(for: configuration.display) { logger.warning("\($0)") }
        let geometry = configuration.display.geometry
        let hardware =
            "keypad \(configuration.keypad.driver.rawValue), display \(configuration.display.driver.rawValue) \(geometry.columns)x\(geometry.rows)"
        // Under systemd (Type=notify): ready while waiting, and the watchdog fed, so a door
        // waiting for its code is not taken for a hung one.
        let notifier = SystemdNotifier()
        notifier.ready(status: "waiting to be adopted by \(site)")
        let feeding = Task {
            guard let interval = notifier.watchdogInterval else { return }
            while !Task.isCancelled {
                notifier.watchdog()
                try? await Task.sleep(for: interval / 2)
            }
        }
        defer { feeding.cancel() }
        while true {
            let session = try DoorPairingSession(
                sites: sites, stateDirectory: stateDirectory, hardware: hardware, allowInsecureHTTP: false,
                siteKey: configuration.siteKey.flatMap { try? ReplicaPublicKey(parsing: $0) })
            do {
                let paired = try await session.run(
                    until: .now + codeLifetime,
                    show: { code in
                        logger.notice(
                            "waiting to be adopted by the site; the pairing code is on the display (kioskpad pair status prints it)",
                            metadata: ["site": "\(site)"])
                        if let display { Task { try? await display.show(frame(["Pair this door:", code.shown, "at the site"], geometry)) } }
                    },
                    note: { logger.warning("pairing: \($0)") })
                await session.shutdown()
                logger.notice("adopted by the site", metadata: ["terminal": "\(paired.terminalID)"])
                if let display {
                    try? await display.show(frame(["Paired as", paired.terminalID], geometry))
                    await display.close()
                }
                return
            } catch {
                await session.shutdown()
                logger.warning("pairing: \(error); trying again", metadata: ["after_s": "\(retryAfterFailure.components.seconds)"])
                if let display { try? await display.show(frame(["Site unreachable", "retrying"], geometry)) }
                try await Task.sleep(for: retryAfterFailure)
            }
        }
    }

    /// `lines` as a frame for `geometry`: each cut or padded to its width, blank rows after.
    static func frame(_ lines: [String], _ geometry: DisplayGeometry) -> Frame {
        let rows = (0..<geometry.rows).map { index -> String in
            let text = index < lines.count ? String(lines[index].prefix(geometry.columns)) : ""
            return text + String(repeating: " ", count: geometry.columns - text.count)
        }
        return Frame(rows: rows, style: .busy)
    }
}
