import DoorConfig
import KioskPadConfig
import Testing

/// `metrics.listen` and `server.listen` are read by the same HOST:PORT parser.
@Suite("Listen addresses")
struct ListenAddressTests {
    @Test(arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464), ("[::1]:9000", "::1", 9000), ("0.0.0.0:0", "0.0.0.0", 0),
    ])
    func metricsListenIsHostAndPort(listen: String, host: String, port: Int) throws {
        let configuration = try ConfigLoader.parse(
            yaml: "metrics:\n  listen: \"\(listen)\"\nverifier: {kind: demo}\n", source: "t")
        #expect(configuration.daemon.metrics?.host == host)
        #expect(configuration.daemon.metrics?.port == port)
    }

    @Test(arguments: ["9464", "127.0.0.1:70000", "localhost:port"])
    func aBadMetricsListenNamesTheKey(listen: String) {
        let error = #expect(throws: ConfigError.self) {
            try ConfigLoader.parse(yaml: "metrics:\n  listen: \"\(listen)\"\nverifier: {kind: demo}\n", source: "t")
        }
        #expect(error?.description.contains("metrics.listen:") == true)
        #expect(error?.description.contains("is not HOST:PORT or off") == true)
    }
}
