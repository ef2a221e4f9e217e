#if canImport(CMosquitto)
    import CMosquitto
    import Dispatch
    import Foundation

    /// One libmosquitto client and the thread its network loop runs on.
    ///
    /// The loop is libmosquitto's own (`mosquitto_loop_forever`: socket I/O, keepalive,
    /// reconnects with back-off), run on a thread this class starts rather than by
    /// `mosquitto_loop_start`, so that its end is seen: in libmosquitto 2.0.11 the loop
    /// returns for good on some errors (TLS and protocol errors, a refused MQTT v5 CONNACK, a
    /// host name that does not resolve), and `mosquitto_loop_start`'s thread would then end
    /// without a word. ``MQTTLink`` is told through `ended` and builds a new client.
    final class MosquittoSession: @unchecked Sendable {
        // @unchecked: `handle` is used as libmosquitto allows with mosquitto_threaded_set: the
        // loop on its thread, publish and subscribe from any thread; it is destroyed only after
        // that thread has ended.
        struct Callbacks: Sendable {
            /// CONNACK: 0 accepted, else the MQTT 3.1.1 return code.
            var connected: @Sendable (Int32) -> Void
            /// The connection closed: 0 when asked to, else the reason.
            var disconnected: @Sendable (Int32) -> Void
            var message: @Sendable (MQTTInbound) -> Void
            /// The loop returned (its libmosquitto error code); the session is finished.
            var ended: @Sendable (Int32) -> Void
        }

        private final class Box: Sendable {
            let callbacks: Callbacks
            init(_ callbacks: Callbacks) { self.callbacks = callbacks }
        }

        /// Loads libmosquitto (once per process); nil when it is ready, else why it is not and
        /// what to install. A session may be made only after this returned nil.
        static func loadLibrary() -> String? {
            var error = [CChar](repeating: 0, count: 256)
            guard kp_mosquitto_load(&error, error.count) != 0 else { return nil }
            return String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }

        private let handle: OpaquePointer
        private let box: Box
        private let settings: MQTTLinkSettings
        private let finished = DispatchSemaphore(value: 0)

        /// Sets up a client (login, TLS, last will); throws ``MQTTSetupError`` naming what the
        /// library refused (an unreadable CA file, say).
        init(settings: MQTTLinkSettings, callbacks: Callbacks) throws {
            self.settings = settings
            box = Box(callbacks)
            guard let handle = kp_mosquitto_new(settings.clientID, true, Unmanaged.passUnretained(box).toOpaque()) else {
                throw MQTTSetupError(step: "mosquitto_new", message: String(cString: strerror(errno)))
            }
            self.handle = handle
            do {
                try configure()
            } catch {
                kp_mosquitto_destroy(handle)
                throw error
            }
        }

        private func configure() throws {
            _ = kp_mosquitto_threaded_set(handle, true)
            try check("protocol version", kp_mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311))
            try check("reconnect delay", kp_mosquitto_reconnect_delay_set(handle, 1, 30, true))
            if let will = settings.will {
                let bytes = Array(will.payload.utf8)
                try check("last will", kp_mosquitto_will_set(handle, will.topic, Int32(bytes.count), bytes, 1, true))
            }
            if let username = settings.username {
                try check("username and password", kp_mosquitto_username_pw_set(handle, username, settings.password))
            }
            if settings.tls {
                if settings.caFile == nil {
                    try check("system CAs", kp_mosquitto_int_option(handle, MOSQ_OPT_TLS_USE_OS_CERTS, 1))
                }
                try check(
                    "TLS files (ca_file, client_cert_file, client_key_file)",
                    kp_mosquitto_tls_set(handle, settings.caFile, nil, settings.clientCertificate, settings.clientKey))
            }
            kp_mosquitto_connect_callback_set(handle) { _, context, code in
                MosquittoSession.box(context)?.callbacks.connected(code)
            }
            kp_mosquitto_disconnect_callback_set(handle) { _, context, code in
                MosquittoSession.box(context)?.callbacks.disconnected(code)
            }
            kp_mosquitto_message_callback_set(handle) { _, context, message in
                guard let message, let box = MosquittoSession.box(context) else { return }
                let topic = message.pointee.topic.map { String(cString: $0) } ?? ""
                let count = Int(max(message.pointee.payloadlen, 0))
                let payload = MQTTPayload(copying: UnsafeRawBufferPointer(start: count > 0 ? message.pointee.payload : nil, count: count))
                box.callbacks.message(MQTTInbound(topic: topic, payload: payload, retained: message.pointee.retain))
            }
        }

        private static func box(_ context: UnsafeMutableRawPointer?) -> Box? {
            context.map { Unmanaged<Box>.fromOpaque($0).takeUnretainedValue() }
        }

        private func check(_ step: String, _ code: Int32) throws {
            guard code == MOSQ_ERR_SUCCESS.rawValue else {
                throw MQTTSetupError(step: step, message: MosquittoSession.describe(code))
            }
        }

        /// Starts the loop thread, which connects first: the name lookup, the TCP connect and
        /// the TLS set-up block, and they block that thread, never a task's. The first
        /// connection attempt's failure is not an error here: the loop retries, and the
        /// callbacks say how it goes. The loop waits in `select` until the socket or a queued
        /// publish (libmosquitto's wake-up pipe, threaded mode) needs it, or the keepalive ping
        /// is due (libmosquitto shortens the wait to that); no 1 s tick while idle.
        func start() {
            let thread = Thread { [self] in
                _ = kp_mosquitto_connect_async(handle, settings.host, Int32(settings.port), Int32(settings.keepalive))
                let code = kp_mosquitto_loop_forever(handle, MosquittoSession.idleWaitMilliseconds, 1)
                finished.signal()
                box.callbacks.ended(code)
            }
            thread.name = "kioskpad-mqtt"
            thread.stackSize = 256 << 10
            thread.start()
        }

        /// The most the loop waits in one `select` with nothing to do (an hour: the keepalive
        /// ping, due sooner, cuts it short).
        static let idleWaitMilliseconds: Int32 = 3_600_000

        @discardableResult
        func publish(topic: String, payload: [UInt8], retain: Bool, qos: Int32 = 1) -> Bool {
            payload.withUnsafeBytes { bytes in
                kp_mosquitto_publish(handle, nil, topic, Int32(bytes.count), bytes.baseAddress, qos, retain) == MOSQ_ERR_SUCCESS.rawValue
            }
        }

        func subscribe(_ topic: String, qos: Int32 = 1) {
            _ = kp_mosquitto_subscribe(handle, nil, topic, qos)
        }

        /// Disconnects cleanly (no last will) and waits up to `wait` for the loop to end, on a
        /// thread of its own (never blocking the task pool). True when it ended; a loop that
        /// does not end in time is left to the process's exit rather than freed under it.
        func close(wait: DispatchTimeInterval = .seconds(2)) async -> Bool {
            _ = kp_mosquitto_disconnect(handle)
            let finished = self.finished
            return await withCheckedContinuation { continuation in
                Thread {
                    let ended = finished.wait(timeout: .now() + wait) == .success
                    if ended { finished.signal() }  // a second close() returns at once
                    continuation.resume(returning: ended)
                }.start()
            }
        }

        /// Frees the client once its loop has ended (after ``close(wait:)`` or `ended`).
        func destroy() {
            kp_mosquitto_destroy(handle)
        }

        /// libmosquitto's words for an error code (`MOSQ_ERR_*`).
        static func describe(_ code: Int32) -> String {
            if code == MOSQ_ERR_ERRNO.rawValue { return String(cString: strerror(errno)) }
            return String(cString: kp_mosquitto_strerror(code))
        }

        /// libmosquitto's words for a CONNACK return code.
        static func describeRefusal(_ code: Int32) -> String {
            String(cString: kp_mosquitto_connack_string(code))
        }
    }
#endif

/// libmosquitto refused to set a client up: `step` names the setting, `message` why.
public struct MQTTSetupError: Error, Equatable, CustomStringConvertible {
    public let step: String
    public let message: String

    public var description: String { "mqtt: \(step): \(message)" }
}
