import Benchmark
import Foundation
import KioskPadAccess
import KioskPadCore
import Logging
import SiteCore
import SiteSQL
import SiteSQLite

/// The store's share of `kioskpad verifier user add` with 10,000 users already in the
/// SQLite file: the insert of one user's row, its transaction and its commit (WAL fsync,
/// `synchronous=FULL`), the PIN's hash made before the measurement (its cost is the work
/// factor's, not the store's). In process, on a file in the temporary directory.
final class UserAddSite {
    let database: SQLiteVerifierDatabase
    let directory: URL
    let hash: PINHash

    init(users: Int) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kp-bench-add-\(UUID())")
        var logger = Logger(label: "bench-user-add")
        logger.logLevel = .error
        database = try await SQLiteVerifierDatabase.open(
            path: directory.appendingPathComponent("verifier.sqlite3").path, busyTimeout: .seconds(5), logger: logger)
        try await SiteMigrations.apply(on: database, location: database.path)
        hash = try PINHash.make(pin: SecretDigits(ascii: "4826")!, iterations: 1_000)
        let records = (0..<users).map { UserRecord(name: "user\($0)", pinHash: hash, lookupTag: "0123abcd." + String(format: "%032x", $0)) }
        _ = try await SQLUserDirectory(database: database, location: database.path, configKey: "server.sqlite.path").importRecords { _ in records }
    }

    func close() async {
        await database.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

func userAddBenchmarks() {
    Benchmark(
        "SQLite store: user add with 10,000 users (hash excluded)",
        configuration: .init(metrics: [.wallClock], warmupIterations: 5, maxDuration: .seconds(10), maxIterations: 500)
    ) { benchmark in
        let site = try await UserAddSite(users: 10_000)
        let directory = SQLUserDirectory(database: site.database, location: site.database.path, configKey: "server.sqlite.path")
        benchmark.startMeasurement()
        for index in benchmark.scaledIterations {
            try await directory.add(
                name: "new\(index)-\(UUID().uuidString.prefix(8))", hash: site.hash, tag: "0123abcd." + String(format: "%032x", 20_000 + index))
        }
        benchmark.stopMeasurement()
        await site.close()
    }
}
