import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The loopback endpoint for monitoring: `/metrics` (Prometheus text) and `/healthz`
/// (200 only when the keypad and the verifier path are healthy, 503 otherwise).
public enum MetricsServer {
    public static func application(
        metrics: TerminalMetrics, health: HealthState, host: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: metrics.exposition())))
        }
        router.get("/healthz") { _, _ -> Response in
            Response(
                status: health.healthy ? .ok : .serviceUnavailable, headers: [.contentType: "text/plain"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: health.summary + "\n")))
        }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "kioskpad"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }
}
