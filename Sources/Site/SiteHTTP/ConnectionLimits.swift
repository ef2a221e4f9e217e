import Hummingbird
import HummingbirdCore
import KioskPadCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The reference verifier's limits on connections: at most `maxConnections` open at once
/// and `maxPerSource` from one address (others are closed as soon as they are accepted), and
/// `requestTimeout` for a connection to deliver a complete request (headers and body) once
/// it is ready for one: a connection that idles, or sends its headers or body slowly, is
/// closed. So a flood of idle connections from one address cannot starve the terminals.
public final class ConnectionLimits: Sendable {
    public let maxConnections: Int
    public let maxPerSource: Int
    public let requestTimeout: Duration
    private let state = Mutex<(open: Int, bySource: [String: Int], peak: Int, refused: Int, timedOut: Int)>((0, [:], 0, 0, 0))

    public init(maxConnections: Int = 512, maxPerSource: Int = 64, requestTimeout: Duration = .seconds(10)) {
        self.maxConnections = maxConnections
        self.maxPerSource = maxPerSource
        self.requestTimeout = requestTimeout
    }

    /// Connections open now, the most ever open at once, how many were refused at accept, and
    /// how many were closed for not delivering a request in time.
    public var statistics: (open: Int, peak: Int, refused: Int, timedOut: Int) {
        state.withLock { ($0.open, $0.peak, $0.refused, $0.timedOut) }
    }

    /// Counts a new connection from `source`; false (not counted) when a limit is reached.
    func admit(_ source: String) -> Bool {
        state.withLock { state in
            guard state.open < maxConnections, state.bySource[source, default: 0] < maxPerSource else {
                state.refused += 1
                return false
            }
            state.open += 1
            state.bySource[source, default: 0] += 1
            state.peak = max(state.peak, state.open)
            return true
        }
    }

    func release(_ source: String) {
        state.withLock { state in
            state.open -= 1
            let left = state.bySource[source, default: 1] - 1
            state.bySource[source] = left > 0 ? left : nil
        }
    }

    func noteTimeout() {
        state.withLock { $0.timedOut += 1 }
    }

    /// The HTTP/1 server with these limits in front of Hummingbird's own channel.
    public func server(configuration: HTTP1Channel.Configuration = .init()) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            LimitedHTTP1Channel(http1: HTTP1Channel(responder: responder, configuration: configuration), limits: self)
        }
    }
}

/// Hummingbird's HTTP/1 child channel with ``ConnectionLimits`` handlers added.
struct LimitedHTTP1Channel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http1: HTTP1Channel
    let limits: ConnectionLimits

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(AdmissionHandler(limits: limits), position: .first)
        }.flatMap {
            http1.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            // Right after the HTTP/1 decoder: whole request parts in, response parts out.
            let decoder = try channel.pipeline.syncOperations.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
            try channel.pipeline.syncOperations.addHandler(RequestDeadlineHandler(limits: limits), position: .after(decoder))
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http1.handle(value: value, logger: logger)
    }
}

/// First in the pipeline: counts the connection against the limits, or closes it at once.
final class AdmissionHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    private let limits: ConnectionLimits
    private var source: String?

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { admit(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        admit(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let source {
            limits.release(source)
            self.source = nil
        }
        context.fireChannelInactive()
    }

    private func admit(context: ChannelHandlerContext) {
        guard source == nil else { return }
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        if limits.admit(address) {
            source = address
        } else {
            context.close(promise: nil)
        }
    }
}

/// Gives a connection `requestTimeout` to deliver a complete request from the moment it is
/// ready for one (accepted, or the previous response sent); closes it otherwise. Also closes
/// after the response when the request did not ask to keep the connection (HTTP/1.0 without
/// keep-alive, or `Connection: close`).
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    private let limits: ConnectionLimits
    private var timer: Scheduled<Void>?
    private var keepAlive = true

    init(limits: ConnectionLimits) {
        self.limits = limits
    }

    func handlerAdded(context: ChannelHandlerContext) {
        arm(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            keepAlive = head.isKeepAlive
        case .body:
            break
        case .end:
            timer?.cancel()  // a complete request: the handler has it now
            timer = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .end = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        if keepAlive {
            context.write(data, promise: promise)
            arm(context: context)  // ready for the next request
        } else {
            let written = context.eventLoop.makePromise(of: Void.self)
            written.futureResult.cascade(to: promise)
            context.writeAndFlush(data, promise: written)
            let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
            written.futureResult.whenComplete { _ in bound.value.close(promise: nil) }
        }
    }

    private func arm(context: ChannelHandlerContext) {
        timer?.cancel()
        let limits = self.limits
        let nanoseconds = limits.requestTimeout.wholeNanoseconds
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) {
            limits.noteTimeout()
            bound.value.close(promise: nil)
        }
    }
}
