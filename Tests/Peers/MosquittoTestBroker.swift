import Foundation
import KeypadTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A real Eclipse Mosquitto broker on loopback for one test (Debian's `mosquitto`, with
/// `mosquitto-clients` to watch it): a plain listener and a TLS listener with a CA made for
/// the test, both needing ``username`` and ``password``. Stop and start it again to test
/// reconnects; it keeps its ports. Everything that waits does so on a thread of its own
/// (``onOwnThread(_:)``), never on the concurrency pool the code under test needs.
public final class MosquittoTestBroker: @unchecked Sendable {
    // @unchecked: `broker` is touched only by the test that owns the broker, one call at a time.
    public let directory: URL
    public let port: Int
    public let tlsPort: Int
    public let username = "door"
    public let password = "broker-pass-\(UInt32.random(in: 1000...9999))"
    public var caFile: String { directory.appendingPathComponent("ca.crt").path }
    public var passwordFile: String { directory.appendingPathComponent("client.password").path }
    private var broker: SpawnedChild?

    /// Makes the CA and certificates, writes the config and starts the broker.
    public static func started() async throws -> MosquittoTestBroker {
        try await onOwnThread {
            // A port taken by another test's server between choosing and binding it: new ports.
            var lastError: (any Error)?
            for _ in 0..<3 {
                do {
                    return try MosquittoTestBroker()
                } catch {
                    lastError = error
                }
            }
            throw lastError ?? BrokerError(message: "mosquitto did not start")
        }
    }

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kioskpad-mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        (port, tlsPort) = (try MosquittoTestBroker.freePort(), try MosquittoTestBroker.freePort())
        try Data(password.utf8).write(to: URL(fileURLWithPath: passwordFile))
        try run("/usr/bin/mosquitto_passwd", ["-b", "-c", path("passwd"), username, password])
        try makeCertificates()
        let config = """
            per_listener_settings false
            allow_anonymous false
            password_file \(path("passwd"))
            persistence false
            listener \(port) 127.0.0.1
            listener \(tlsPort) 127.0.0.1
            cafile \(caFile)
            certfile \(path("server.crt"))
            keyfile \(path("server.key"))
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: path("mosquitto.conf")))
        // Run as root, mosquitto drops to its own user, which must read these test-only files.
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: directory.path)
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path(name))
        }
        try startWaiting()
    }

    deinit {
        // Killed now, reaped on a thread of its own: a deinit may run on the concurrency pool,
        // and a reaper thread alone does not outlive a test process that exits.
        broker?.terminateInBackground()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the broker again and waits until both listeners accept connections.
    public func start() async throws {
        try await onOwnThread { try self.startWaiting() }
    }

    /// Starts mosquitto and waits until both listeners accept connections and it is still
    /// running: a port another test's server took between ``freePort()`` and the bind makes
    /// mosquitto exit, and a connection that port accepts is not the broker's.
    private func startWaiting() throws {
        let child = try SpawnedChild(["/usr/sbin/mosquitto", "-c", path("mosquitto.conf")], stderr: .file(path("broker.log")))
        broker = child
        for _ in 0..<500 {
            guard child.isRunning else { break }
            if MosquittoTestBroker.accepts(port) && MosquittoTestBroker.accepts(tlsPort) {
                usleep(50_000)
                if child.isRunning { return }
                break
            }
            usleep(10_000)
        }
        throw BrokerError(message: "mosquitto did not listen on \(port) and \(tlsPort)\(child.isRunning ? "" : " (it exited)"): \(log)")
    }

    /// Stops the broker (its clients see the connection drop), waiting for it on a thread
    /// of its own.
    public func stop() async {
        let broker = self.broker
        self.broker = nil
        _ = try? await onOwnThread { broker?.terminate() }
    }

    /// What the broker logged.
    public var log: String { (try? String(contentsOfFile: path("broker.log"), encoding: .utf8)) ?? "" }

    /// One message as `mosquitto_sub` saw it.
    public struct Message: Sendable, Equatable {
        public let retained: Bool
        public let topic: String
        public let payload: String
    }

    /// The retained messages under `topic` (a filter), read by a fresh subscriber.
    public func retained(_ topic: String, expecting count: Int) async throws -> [Message] {
        let output = try await onOwnThread {
            try self.run("/usr/bin/mosquitto_sub", self.subscribeArguments(topic) + ["--retained-only", "-C", "\(count)", "-W", "5"], allowFailure: true)
        }
        return MosquittoTestBroker.parse(output)
    }

    /// Publishes one message with `mosquitto_pub`.
    public func publish(_ topic: String, _ payload: String, retain: Bool = false) async throws {
        let arguments = publishArguments(topic, payload) + (retain ? ["-r"] : [])
        _ = try await onOwnThread { try self.run("/usr/bin/mosquitto_pub", arguments) }
    }

    /// A subscriber that runs in the background and keeps every message it sees.
    public func watch(_ topic: String) async throws -> Watcher {
        let probe = "kioskpad-test-probe/\(UUID().uuidString)"
        let arguments = subscribeArguments(topic) + ["-t", probe]
        return try await onOwnThread {
            let watcher = try Watcher(arguments: arguments, probe: probe)
            // Subscribed once the probe comes back: a fixed pause was not enough under load.
            for _ in 0..<100 {
                try self.run("/usr/bin/mosquitto_pub", self.publishArguments(probe, "probe"))
                if watcher.sawProbe(within: .milliseconds(100)) { return watcher }
            }
            throw BrokerError(message: "mosquitto_sub did not subscribe to \(topic) within about 10 s: \(self.log)")
        }
    }

    private func publishArguments(_ topic: String, _ payload: String) -> [String] {
        ["-h", "127.0.0.1", "-p", "\(port)", "-u", username, "-P", password, "-q", "1", "-t", topic, "-m", payload]
    }

    private func subscribeArguments(_ topic: String) -> [String] {
        ["-h", "127.0.0.1", "-p", "\(port)", "-u", username, "-P", password, "-q", "1", "-v", "-F", "%r\t%t\t%p", "-t", topic]
    }

    /// A background `mosquitto_sub`, ended when the watcher goes away.
    public final class Watcher: @unchecked Sendable {
        // @unchecked: `received` is a locked buffer; `child` is only started and ended.
        private let child: SpawnedChild
        private let received = Received()
        private let probe: String

        /// What the reader thread appends to; the thread holds this and the child, never
        /// the watcher, so the watcher's deinit runs and ends the subscriber.
        private final class Received: @unchecked Sendable {
            // @unchecked: `data` is guarded by `lock`.
            let lock = NSLock()
            var data = Data()
        }

        init(arguments: [String], probe: String) throws {
            self.probe = probe
            child = try SpawnedChild(["/usr/bin/mosquitto_sub"] + arguments, stdout: .pipe)
            let (child, received) = (self.child, self.received)
            Thread {
                guard let output = child.output else { return }
                SpawnedChild.read(output) { chunk in received.lock.withLock { received.data.append(contentsOf: chunk) } }
            }.start()
        }

        /// Whether the probe message arrived, waiting (blocking) up to `timeout`.
        func sawProbe(within timeout: Duration) -> Bool {
            let deadline = ContinuousClock.now + timeout
            repeat {
                if MosquittoTestBroker.parse(received.lock.withLock { String(decoding: received.data, as: UTF8.self) }).contains(where: { $0.topic == probe }) {
                    return true
                }
                usleep(10_000)
            } while ContinuousClock.now < deadline
            return false
        }

        deinit { child.terminateInBackground() }

        /// Every complete message so far (the subscription probe left out).
        public var messages: [Message] {
            MosquittoTestBroker.parse(received.lock.withLock { String(decoding: received.data, as: UTF8.self) }).filter { $0.topic != probe }
        }

        public func messages(on topic: String) -> [Message] { messages.filter { $0.topic == topic } }

        /// Waits up to `seconds` until `condition` holds for the messages seen.
        public func wait(seconds: Double = 10, until condition: ([Message]) -> Bool) async -> Bool {
            let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
            while ContinuousClock.now < deadline {
                if condition(messages) { return true }
                try? await Task.sleep(for: .milliseconds(20))
            }
            return condition(messages)
        }
    }

    static func parse(_ output: String) -> [Message] {
        output.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            let fields = line.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
            guard fields.count == 3 else { return nil }
            return Message(retained: fields[0] == "1", topic: String(fields[1]), payload: String(fields[2]))
        }
    }

    private func makeCertificates() throws {
        let openssl = "/usr/bin/openssl"
        try run(
            openssl,
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=KioskPad test CA",
                "-keyout", path("ca.key"), "-out", caFile,
            ])
        try run(
            openssl,
            [
                "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", path("server.key"), "-out",
                path("server.csr"),
            ])
        try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: path("san.ext")))
        try run(
            openssl,
            [
                "x509", "-req", "-in", path("server.csr"), "-CA", caFile, "-CAkey", path("ca.key"), "-CAcreateserial",
                "-days", "2", "-extfile", path("san.ext"), "-out", path("server.crt"),
            ])
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String], allowFailure: Bool = false) throws -> String {
        let (status, output) = try SpawnedChild.run([tool] + arguments)
        if status != 0 && !allowFailure {
            throw BrokerError(message: "\(tool) \(arguments.first ?? "") exited \(status)")
        }
        return output
    }

    static func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw BrokerError(message: "no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    public struct BrokerError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}
