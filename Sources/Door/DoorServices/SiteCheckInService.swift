import DoorVerifierClient
import Foundation
import KioskPadAccess
import KioskPadStorage
import KioskPadThreads
import Logging
import ServiceLifecycle

/// An adopted door's check-in (`POST /v1/check-in`): at start, then as often as the site says
/// (`server.check_in_seconds`), it asks the site whether a rotation of its secret waits. When
/// one does, it opens the next secret with the current one (``SecretRotationSeal``), stores it
/// in `secretFile` (mode 600, fsynced, on the door's file thread), signs every request with it
/// from then on and checks in again at once, which tells the site the rotation is done. The
/// site accepts both secrets until then, so no attempt is refused on the way. A failure is
/// logged (never a secret) and the door asks again at the next interval; the old secret keeps
/// working meanwhile.
public struct SiteCheckInService: Service {
    let verifier: HTTPVerifier
    let terminalID: String
    let secretFile: String
    let logger: Logger
    /// Before the site has said: once a minute; after a failure: the last interval the site gave.
    static let firstInterval: Duration = .seconds(60)

    public init(verifier: HTTPVerifier, terminalID: String, secretFile: String, logger: Logger) {
        self.verifier = verifier
        self.terminalID = terminalID
        self.secretFile = secretFile
        self.logger = logger
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var interval = Self.firstInterval
            while !Task.isCancelled {
                if let next = await checkIn() { interval = next }
                try? await Task.sleep(for: interval)
            }
        }
    }

    /// One check-in, and the rotation it carries if any; the interval the site gave, nil when
    /// it gave none (unreachable, refused).
    func checkIn() async -> Duration? {
        do {
            let answer = try await verifier.checkIn(terminalID: terminalID)
            guard let sealed = answer.sealedRotation, let current = verifier.secret else { return answer.interval }
            let next = try SecretRotationSeal.open(sealed, current: current, terminalID: terminalID)
            let path = secretFile
            try await WorkThreads.files.run { try DurableFile.replace(path: path, contents: Array((next.text + "\n").utf8), mode: 0o600) }
            verifier.replaceSecret(next)
            logger.notice("the site rotated this door's secret; requests are signed with the new one", metadata: ["file": "\(path)"])
            // Signed with the new secret: the site ends the old one.
            return try await verifier.checkIn(terminalID: terminalID).interval
        } catch {
            logger.warning("check-in with the site failed; the door asks again later", metadata: ["reason": "\(error)"])
            return nil
        }
    }
}
