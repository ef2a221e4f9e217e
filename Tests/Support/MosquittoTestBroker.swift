import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real Eclipse Mosquitto broker on loopback for one test (Debian's `mosquitto`, with
/// `mosquitto-clients` to watch it): a plain listener and a TLS listener with a CA made for
/// the test, both needing ``username`` and ``password``. Stop and start it again to test
/// reconnects; it keeps its ports. Everything that waits does so on a thread of its own
/// (``onOwnThread(_:)``), never on the concurrency pool the code under test needs.
public final class MosquittoTestBroker: @unchecked Sendable {
    // @unchecked: `process` is touched only by the test that owns the broker, one call at a time.
    public let directory: URL
    public let port: Int
    public let tlsPort: Int
    public let username = "door"
    public let password = "broker-pass-\(UInt32.random(in: 1000...9999))"
    public var caFile: String { directory.appendingPathComponent("ca.crt").path }
    public var passwordFile: String { directory.appendingPathComponent("client.password").path }
    private var process: Process?

    /// Makes the CA and certificates, writes the config and starts the broker.
    public static func started() async throws -> MosquittoTestBroker {
        try await onOwnThread { try MosquittoTestBroker() }
    }

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kioskpad-mqtt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        port = try MosquittoTestBroker.freePort()
        tlsPort = try MosquittoTestBroker.freePort()
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
        stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Starts the broker again and waits until both listeners accept connections.
    public func start() async throws {
        try await onOwnThread { try self.startWaiting() }
    }

    private func startWaiting() throws {
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: "/usr/sbin/mosquitto")
        broker.arguments = ["-c", path("mosquitto.conf")]
        broker.standardOutput = FileHandle(forWritingAtPath: "/dev/null")
        broker.standardError = try FileHandle(forWritingTo: logFile())
        try broker.run()
        process = broker
        for _ in 0..<500 {
            if MosquittoTestBroker.accepts(port) && MosquittoTestBroker.accepts(tlsPort) { return }
            usleep(10_000)
        }
        throw BrokerError(message: "mosquitto did not listen on \(port) and \(tlsPort): \(log)")
    }

    /// Stops the broker (its clients see the connection drop).
    public func stop() {
        guard let process else { return }
        self.process = nil
        MosquittoTestBroker.end(process)
    }

    /// What the broker logged.
    public var log: String { (try? String(contentsOf: logFile(), encoding: .utf8)) ?? "" }

    /// One message as `mosquitto_sub` saw it.
    public struct Message: Sendable, Equatable {
        public let retained: Bool
        public let topic: String
        public let payload: String
    }

    /// The retained messages under `topic` (a filter), read by a fresh subscriber.
    public func retained(_ topic: String, expecting count: Int) async throws -> [Message] {
        let output = try await onOwnThread { try self.run("/usr/bin/mosquitto_sub", self.subscribeArguments(topic) + ["--retained-only", "-C", "\(count)", "-W", "5"], allowFailure: true) }
        return MosquittoTestBroker.parse(output)
    }

    /// Publishes one message with `mosquitto_pub`.
    public func publish(_ topic: String, _ payload: String, retain: Bool = false) async throws {
        let arguments = ["-h", "127.0.0.1", "-p", "\(port)", "-u", username, "-P", password, "-q", "1", "-t", topic, "-m", payload] + (retain ? ["-r"] : [])
        _ = try await onOwnThread { try self.run("/usr/bin/mosquitto_pub", arguments) }
    }

    /// A subscriber that runs in the background and keeps every message it sees.
    public func watch(_ topic: String) async throws -> Watcher {
        let arguments = subscribeArguments(topic)
        return try await onOwnThread { try Watcher(arguments: arguments) }
    }

    private func subscribeArguments(_ topic: String) -> [String] {
        ["-h", "127.0.0.1", "-p", "\(port)", "-u", username, "-P", password, "-q", "1", "-v", "-F", "%r\t%t\t%p", "-t", topic]
    }

    /// A background `mosquitto_sub`.
    public final class Watcher: @unchecked Sendable {
        // @unchecked: `buffer` is guarded by `lock`.
        private let process = Process()
        private let lock = NSLock()
        private var buffer = Data()

        init(arguments: [String]) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/mosquitto_sub")
            process.arguments = arguments
            let output = Pipe()
            process.standardOutput = output
            process.standardError = FileHandle(forWritingAtPath: "/dev/null")
            try process.run()
            let handle = output.fileHandleForReading
            Thread { [self] in
                while true {
                    let chunk = handle.availableData
                    if chunk.isEmpty { break }
                    lock.lock()
                    buffer.append(chunk)
                    lock.unlock()
                }
            }.start()
            usleep(200_000)  // subscribed before the test goes on
        }

        deinit { stop() }

        /// Every complete message so far.
        public var messages: [Message] {
            lock.lock()
            defer { lock.unlock() }
            return MosquittoTestBroker.parse(String(decoding: buffer, as: UTF8.self))
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

        public func stop() {
            MosquittoTestBroker.end(process)
        }
    }

    /// SIGTERM, then SIGKILL after 3 s; polls rather than `waitUntilExit()`, which can spin
    /// forever once the process has begun to exit.
    static func end(_ process: Process) {
        let pid = process.processIdentifier
        guard pid > 0 else { return }
        kill(pid, SIGTERM)
        for attempt in 0..<500 {
            if !process.isRunning || kill(pid, 0) != 0 { return }
            if attempt == 300 { kill(pid, SIGKILL) }
            usleep(10_000)
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
        try run(openssl, ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-subj", "/CN=KioskPad test CA",
                          "-keyout", path("ca.key"), "-out", caFile])
        try run(openssl, ["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-subj", "/CN=127.0.0.1", "-keyout", path("server.key"), "-out", path("server.csr")])
        try Data("subjectAltName=IP:127.0.0.1\n".utf8).write(to: URL(fileURLWithPath: path("san.ext")))
        try run(openssl, ["x509", "-req", "-in", path("server.csr"), "-CA", caFile, "-CAkey", path("ca.key"), "-CAcreateserial",
                          "-days", "2", "-extfile", path("san.ext"), "-out", path("server.crt")])
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func logFile() throws -> URL {
        let url = directory.appendingPathComponent("broker.log")
        if !FileManager.default.fileExists(atPath: url.path) { _ = FileManager.default.createFile(atPath: url.path, contents: nil) }
        return url
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String], allowFailure: Bool = false) throws -> String {
        let child = Process()
        child.executableURL = URL(fileURLWithPath: tool)
        child.arguments = arguments
        let output = Pipe()
        child.standardOutput = output
        child.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try child.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        child.waitUntilExit()
        if child.terminationStatus != 0 && !allowFailure {
            throw BrokerError(message: "\(tool) \(arguments.first ?? "") exited \(child.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
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
