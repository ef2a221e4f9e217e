import NIOCore
import NIOHTTP1
import NIOPosix
import ServiceLifecycle

/// The loopback endpoint for monitoring: `/metrics` (Prometheus text) and `/healthz`
/// (200 only when the keypad and the verifier path are healthy, 503 otherwise). Plain
/// SwiftNIO HTTP/1.1 on the shared event loops: an idle endpoint wakes no thread (a web
/// framework's once-a-second date refresh would wake the process ten times in 10 s).
public struct MetricsServer: Service {
    let metrics: TerminalMetrics
    let health: HealthState
    let host: String
    let port: Int
    let onRunning: @Sendable (Int) async -> Void

    public init(
        metrics: TerminalMetrics, health: HealthState, host: String, port: Int,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.metrics = metrics
        self.health = health
        self.host = host
        self.port = port
        self.onRunning = onRunning
    }

    public func run() async throws {
        let respond = MetricsResponder(metrics: metrics, health: health)
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(MetricsHTTPHandler(respond: respond))
                }
            }
            .bind(host: host, port: port).get()
        await onRunning(channel.localAddress?.port ?? port)
        try? await gracefulShutdown()
        try? await channel.close()
    }
}

/// What each path answers: status, content type and body.
struct MetricsResponder: Sendable {
    let metrics: TerminalMetrics
    let health: HealthState

    func answer(method: HTTPMethod, path: String) -> (HTTPResponseStatus, String, String) {
        let route = path.split(separator: "?", maxSplits: 1).first.map(String.init) ?? path
        switch (method, route) {
        case (.GET, "/metrics"), (.HEAD, "/metrics"):
            return (.ok, "text/plain; version=0.0.4; charset=utf-8", metrics.exposition())
        case (.GET, "/healthz"), (.HEAD, "/healthz"):
            return (health.healthy ? .ok : .serviceUnavailable, "text/plain", health.body)
        case (_, "/metrics"), (_, "/healthz"):
            return (.methodNotAllowed, "text/plain", "use GET\n")
        default:
            return (.notFound, "text/plain", "not found: /metrics and /healthz are served here\n")
        }
    }
}

/// One HTTP/1.1 connection: answers each request head when its end arrives.
final class MetricsHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let respond: MetricsResponder
    /// The head of the request in flight (the channel's event loop is the only caller).
    private var request: HTTPRequestHead?

    init(respond: MetricsResponder) {
        self.respond = respond
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            request = head
        case .body:
            break
        case .end:
            guard let head = request else { return }
            request = nil
            let (status, contentType, body) = respond.answer(method: head.method, path: head.uri)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: contentType)
            headers.add(name: "Content-Length", value: String(body.utf8.count))
            headers.add(name: "Server", value: "kioskpad")
            let keepAlive = head.isKeepAlive
            if !keepAlive { headers.add(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            if head.method != .HEAD {
                context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(string: body)))), promise: nil)
            }
            let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if !keepAlive {
                let channel = context.channel
                done.whenComplete { _ in channel.close(promise: nil) }
            }
        }
    }
}
