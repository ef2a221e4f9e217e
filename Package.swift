// swift-tools-version: 6.1
// KioskPad: a door and kiosk PIN terminal (kioskpad) and its site server (kioskpad-verifier).
// SPDX-License-Identifier: Apache-2.0 (LICENSE; SwiftPM's manifest has no licence field).
// The packages below keep their own licences; deploy/debian/copyright lists what the
// binaries include.
import PackageDescription

/// Every target: Swift 6 mode plus `any` spelled out, and a warning for an expression or a
/// function body that takes long to type-check (CI fails on one: scripts/check-type-check-times.sh).
/// The limits are about 3 times the slowest measured on a busy 2-core build (docs/development.md,
/// "Compilers"); Debian's Swift 6.2.3, which builds the arm64 packages, gives up on some
/// expressions 6.3.1 checks quickly, so scripts/check-debian-swift.sh builds with it too.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .unsafeFlags(["-Xfrontend", "-warn-long-expression-type-checking=1500", "-Xfrontend", "-warn-long-function-bodies=2500"]),
]

/// Linux link flags for `kioskpad` that keep its resident memory down (issue 10): lld packs
/// the ~140,000 relative relocations of a position-independent static-stdlib binary into a
/// few kB (`DT_RELR`, glibc 2.36+: Debian 12, Raspberry Pi OS bookworm) instead of 3.4 MB
/// the loader reads at every start, and the binary no longer exports its ~49,000 symbols
/// (the static stdlib asks for `-export-dynamic`), whose hash tables the loader walks.
/// lld ships with the Swift toolchain.
let leanExecutable: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"], .when(platforms: [.linux]))
]

/// Release builds of `name` put the functions a start runs (scripts/link-order/NAME.order,
/// written by scripts/link-order.sh) next to each other at the front of the code, so a door at
/// ready maps a few MB of it instead of pages scattered over all of it (README, "Footprint").
/// A function the file names that the program lacks is skipped, silently. To measure what it
/// saves, `scripts/cross-arm64.sh --no-link-order` adds an empty ordering file after this one
/// (lld takes the last). The manifest reads no environment: SwiftPM evaluates a manifest that
/// does again whenever any variable differs, and then recompiles every module of the package.
func startupCodeFirst(_ name: String) -> [LinkerSetting] {
    return [
        .unsafeFlags(
            ["-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/scripts/link-order/\(name).order", "-Xlinker", "--no-warn-symbol-ordering"],
            .when(platforms: [.linux], configuration: .release))
    ]
}

let package = Package(
    name: "KioskPad",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "kioskpad", targets: ["DoorCLI"]),
        .executable(name: "kioskpad-verifier", targets: ["SiteCLI"]),
        .library(name: "KioskPadCore", targets: ["KioskPadCore"]),
        .library(name: "KioskPadAccess", targets: ["KioskPadAccess"]),
        .library(name: "DoorVerifierClient", targets: ["DoorVerifierClient"]),
        // For Benchmarks/: a door's replica sync and offline decision.
        .library(name: "DoorOfflineReplica", targets: ["DoorOfflineReplica"]),
        .library(name: "SiteCore", targets: ["SiteCore"]),
        .library(name: "SiteHTTP", targets: ["SiteHTTP"]),
        // For Benchmarks/: the console's page loads over a large site.
        .library(name: "SiteConsole", targets: ["SiteConsole"]),
        // For Benchmarks/: the store's share of `verifier user add`.
        .library(name: "SiteSQLite", targets: ["SiteSQLite"]),
        .library(name: "SiteSQL", targets: ["SiteSQL"]),
        // For Benchmarks/: the scanner, the LCD driver, and the mock key matrix they run on.
        .library(name: "KeypadHAL", targets: ["KeypadHAL"]),
        .library(name: "KeypadDisplay", targets: ["KeypadDisplay"]),
        .library(name: "KeypadTestSupport", targets: ["KeypadTestSupport"]),
        // For Benchmarks/: the PostgreSQL server and libosdp reader the benchmarks start.
        .library(name: "TestPeers", targets: ["TestPeers"]),
        .library(name: "DoorServices", targets: ["DoorServices"]),
        // For Benchmarks/: an OSDP reader's key to the entry model.
        .library(name: "DoorOSDP", targets: ["DoorOSDP"]),
        // For Benchmarks/: a grant's way to Home Assistant (bridge, link, broker, subscriber).
        .library(name: "DoorHomeAssistant", targets: ["DoorHomeAssistant", "DoorController"]),
    ],
    // GPIO: the libgpiod keypad backend (needs libgpiod-dev). `swift build --disable-default-traits`
    // builds simulated mode without it.
    traits: [
        .trait(name: "GPIO", description: "Matrix keypad on Linux GPIO through libgpiod (libgpiod-dev)."),
        // QuietExecutors: a fixed worker pool and a main-thread executor that wake no thread
        // when idle, on the experimental executor SPI of Swift 6.3 (ignored by older
        // compilers, which use the standard executors).
        .trait(name: "QuietExecutors", description: "Idle-quiet task and main-actor executors (Swift 6.3's experimental executor SPI)."),
        // MQTT: Home Assistant over MQTT (`mqtt:`) through libmosquitto (libmosquitto-dev).
        .trait(name: "MQTT", description: "Home Assistant over MQTT through Eclipse Mosquitto's client library (libmosquitto-dev)."),
        .default(enabledTraits: ["GPIO", "QuietExecutors", "MQTT"]),
    ],
    dependencies: [
        // CLI: one type per subcommand, help text on every option.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // Structured logging to stderr/journald; the controller logs outcomes (never PINs).
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // Strict YAML config: we walk Yams' node tree ourselves to reject unknown keys with line numbers.
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // PBKDF2-SHA256 for the users file (CryptoExtras) and constant-time-friendly primitives.
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        // HTTP verifier client: connection pooling, deadlines, TLS with custom CA and mTLS.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        // The reference verifier server (`kioskpad verifier serve`). Without its
        // ConfigurationSupport trait (swift-configuration readers, unused here): a package with
        // two traits on gets them as -D flags in a random order each time SwiftPM 6.3 plans a
        // build, and every Hummingbird module then compiles again (scripts/setup.sh).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: ["FullFoundation"]),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        // Metrics for the daemon: swift-metrics API, Prometheus text format.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        // The reference verifier's shared store for many doors (`server.store: postgres`).
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // The reference verifier's own database by default (`server.store: sqlite`): SQLite
        // compiled in (no system library), every call on NIO's thread pool, async like PostgresNIO.
        .package(url: "https://github.com/vapor/sqlite-nio", from: "1.13.2"),
        // The site's SQL written once for both stores (issue 44): SQLKit statements whose binds
        // each engine's placeholders carry, over the same sqlite-nio and postgres-nio connections.
        .package(url: "https://github.com/vapor/sql-kit", from: "3.36.0"),
        .package(url: "https://github.com/vapor/sqlite-kit", from: "4.5.2"),
        .package(url: "https://github.com/vapor/postgres-kit", from: "2.17.0"),
        // The site console's pages (`server.console`): Mustache templates, HTML-escaped by default.
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        // The console's sign-in through an OpenID Connect provider (issue 81): ID tokens and
        // the provider's JWKS read and verified by a maintained JWT library, not by hand.
        .package(url: "https://github.com/vapor/jwt-kit", exact: "5.7.1"),
    ],
    targets: [
        .target(name: "KioskPadCore", path: "Sources/Shared/KioskPadCore", swiftSettings: strict),
        // Terminal raw mode and restore-on-every-exit, shared by the keyboard source and ANSI display.
        .target(name: "TerminalIO", path: "Sources/Shared/TerminalIO", swiftSettings: strict),
        // libgpiod from the system (v1.6 API on Debian 12 / Raspberry Pi OS bookworm).
        .systemLibrary(
            name: "CGPIOD", path: "Sources/C/CGPIOD", pkgConfig: "libgpiod",
            providers: [.apt(["libgpiod-dev"])]
        ),
        // A thin C shim: arrays of offsets in, bulk set/get, edge waits, precise errors.
        .target(
            name: "CKeypadGPIO",
            dependencies: [.target(name: "CGPIOD", condition: .when(platforms: [.linux], traits: ["GPIO"]))], path: "Sources/C/CKeypadGPIO"
        ),
        .target(
            name: "KeypadHAL",
            dependencies: [
                "KioskPadCore", "TerminalIO", "CKeypadInput",
                .target(name: "CKeypadGPIO", condition: .when(platforms: [.linux], traits: ["GPIO"])),
            ],
            path: "Sources/Door/KeypadHAL",
            swiftSettings: strict
        ),
        // Eclipse Mosquitto's MQTT client library (Debian 12: 2.0.11), loaded at run time only
        // when `mqtt:` is configured; its header (libmosquitto-dev) is needed to build.
        .target(name: "CMosquitto", path: "Sources/C/CMosquitto", linkerSettings: [.linkedLibrary("dl")]),
        // A terminal in Home Assistant: the broker link (libmosquitto's loop on a thread of
        // ours, rebuilt when it ends), discovery, states, events and remote unlock.
        .target(
            name: "DoorHomeAssistant",
            dependencies: [
                "KioskPadCore", "KioskPadAccess", "DoorController", "KioskPadStorage",
                .target(name: "CMosquitto", condition: .when(platforms: [.linux], traits: ["MQTT"])),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Door/DoorHomeAssistant",
            swiftSettings: strict
        ),
        // OSDP readers (SIA OSDP v2.2, the control panel's side with the Secure Channel) on an
        // RS-485 serial line: packets, CRC, sessions, polling on a thread of its own, feedback.
        .target(
            name: "DoorOSDP",
            dependencies: [
                "KioskPadCore", "KeypadHAL", "KeypadDisplay", "DoorController",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/Door/DoorOSDP",
            swiftSettings: strict
        ),
        // The eight glibc 2.38 symbols Debian's Swift runtime asks for, defined in both programs
        // from older ones, so one arm64 build starts on Raspberry Pi OS bookworm (glibc 2.36).
        .target(name: "CGlibcFloor", path: "Sources/C/CGlibcFloor", cSettings: [.unsafeFlags(["-fno-builtin"])], linkerSettings: [.linkedLibrary("m")]),
        // Whether the kernel reports the wall clock synchronised (adjtimex), for clock.trust.
        .target(name: "CKernelClock", path: "Sources/C/CKernelClock"),
        // Kernel input devices (evdev ioctls) for USB numeric keypads and gpio-matrix-keypad.
        .target(name: "CKeypadInput", path: "Sources/C/CKeypadInput"),
        // Linux i2c-dev (open + I2C_SLAVE ioctl) for the HD44780 LCD's PCF8574 backpack.
        .target(name: "CKeypadI2C", path: "Sources/C/CKeypadI2C"),
        .target(name: "KeypadDisplay", dependencies: ["KioskPadCore", "TerminalIO", "CKeypadI2C"], path: "Sources/Door/KeypadDisplay", swiftSettings: strict),
        // Where a verifier is (URL rules: plain http only to loopback) and where secrets come
        // from (file, environment, systemd credential). No crypto: the config reads these.
        .target(name: "KioskPadEndpoints", path: "Sources/Shared/KioskPadEndpoints", swiftSettings: strict),
        // Files that survive a crash or power cut: atomic replace with fsync, and append-only
        // JSON lines fsynced per line (the terminal's journal, the verifier's audit log).
        .target(name: "KioskPadStorage", path: "Sources/Shared/KioskPadStorage", swiftSettings: strict),
        // The verifier seam and its wire format: request and response bodies, Standard
        // Webhooks signatures and secrets, PIN hashes, the users file, the local verifier.
        // libsodium's ristretto255, loaded at run time (libsodium.so.23): pairing's CPace.
        .target(name: "CSodium", path: "Sources/C/CSodium", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "KioskPadAccess",
            dependencies: [
                "KioskPadCore", "KioskPadEndpoints", "KioskPadStorage", "KioskPadThreads", "CSodium",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "CryptoExtras", package: "swift-crypto"),
            ],
            path: "Sources/Shared/KioskPadAccess",
            swiftSettings: strict
        ),
        // The reference verifier's decisions without HTTP: signature, replay log, limits,
        // lockout, PINs, TOTP, one-time codes, audit. Returns a typed decision.
        .target(
            name: "SiteCore",
            dependencies: [
                "KioskPadCore", "KioskPadAccess", "KioskPadStorage", "KioskPadEndpoints", "KioskPadThreads",
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Sources/Site/SiteCore",
            swiftSettings: strict
        ),
        // The site's state in SQL, written once for SQLite and PostgreSQL: users, rules, codes,
        // replay cache, lockout, audit, console, replicas; one migration list.
        .target(
            name: "SiteSQL",
            dependencies: [
                "SiteCore", "KioskPadAccess", "KioskPadCore", "KioskPadStorage",
                .product(name: "SQLKit", package: "sql-kit"),
            ],
            path: "Sources/Site/SiteSQL",
            swiftSettings: strict
        ),
        // The PostgreSQL pool the site's SQL runs on when several instances share it: time
        // limits, TLS, errors without secrets.
        .target(
            name: "SitePostgres",
            dependencies: [
                "SiteSQL", "SiteCore", "KioskPadAccess", "KioskPadCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "PostgresKit", package: "postgres-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Site/SitePostgres",
            swiftSettings: strict
        ),
        // The SQLite file the site's SQL runs on by default (one instance): one writer, WAL
        // readers, synchronous=FULL.
        .target(
            name: "SiteSQLite",
            dependencies: [
                "SiteSQL", "KioskPadCore",
                .product(name: "SQLiteNIO", package: "sqlite-nio"),
                .product(name: "SQLiteKit", package: "sqlite-kit"),
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Site/SiteSQLite",
            swiftSettings: strict
        ),
        // QR codes for TOTP enrolment: libqrencode (Debian libqrencode4) loaded at run time,
        // so the door terminal, which never draws one, does not link it.
        // Build tools: a program's files (the console's templates, CSS and script) embedded in it
        // at build time, so nothing has to be installed beside the binary.
        .executableTarget(name: "embed-files", path: "Sources/Build/EmbedFiles", swiftSettings: strict),
        .plugin(name: "EmbedFiles", capability: .buildTool(), dependencies: ["embed-files"], path: "Plugins/EmbedFiles"),
        .target(name: "CQRCode", path: "Sources/C/CQRCode", linkerSettings: [.linkedLibrary("dl")]),
        // Sign-in through the organisation's OpenID Connect provider: discovery, PKCE, the ID
        // token checked with jwt-kit against the provider's JWKS, claims mapped to roles.
        .target(
            name: "SiteSignIn",
            dependencies: [
                "SiteCore", "KioskPadCore", "KioskPadEndpoints",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Sources/Site/SiteSignIn",
            swiftSettings: strict
        ),
        // The site console in the browser (`/console/` of `verifier serve`): administrators'
        // logins and sessions, CSRF, the Doors, Users, Codes and Who entered pages.
        .target(
            name: "SiteConsole",
            dependencies: [
                "SiteCore", "SiteSignIn", "KioskPadAccess", "KioskPadCore", "KioskPadStorage", "CQRCode",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Sources/Site/SiteConsole",
            // The templates, stylesheet and script: files in Files/, embedded at build time.
            exclude: ["Files"],
            swiftSettings: strict,
            plugins: ["EmbedFiles"]
        ),
        // The server side's composition root: turns a verifier config into its store (SQLite
        // or PostgreSQL) and the running application, for `verifier serve` and its tools.
        .target(
            name: "SiteAssembly",
            dependencies: [
                "SiteHTTP", "SiteCore", "SiteSQL", "SiteSQLite", "SitePostgres",
                "KioskPadConfig", "SiteConfig", "KioskPadAccess", "KioskPadCore", "KioskPadEndpoints", "SiteConsole", "SiteSignIn",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // Webhooks out: the site posts signed messages to receivers (issue 61).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Sources/Site/SiteAssembly",
            swiftSettings: strict
        ),
        .target(
            name: "DoorVerifierClient",
            dependencies: [
                "KioskPadCore", "KioskPadAccess", "KioskPadEndpoints",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Door/DoorVerifierClient",
            swiftSettings: strict
        ),
        // A door's signed credential replica: kept in state_dir, synced from the verifier,
        // and decided from when the verifier cannot answer (`verifier.offline`).
        .target(
            name: "DoorOfflineReplica",
            dependencies: [
                "KioskPadCore", "KioskPadAccess", "DoorVerifierClient", "KioskPadStorage", "CKernelClock", "KioskPadThreads",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Door/DoorOfflineReplica",
            swiftSettings: strict
        ),
        .target(
            name: "SiteHTTP",
            dependencies: [
                "SiteCore", "KioskPadAccess", "KioskPadCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Sources/Site/SiteHTTP",
            swiftSettings: strict
        ),
        // The config reader both programs share: the strict YAML walker, problems with key
        // paths and places, environment overrides. No section of either program.
        .target(
            name: "KioskPadConfig",
            dependencies: ["KioskPadCore", "KioskPadEndpoints", .product(name: "Yams", package: "Yams")], path: "Sources/Shared/KioskPadConfig",
            swiftSettings: strict
        ),
        // The door's config file (`kioskpad`): its sections, beside the hardware types they name.
        .target(
            name: "DoorConfig",
            dependencies: ["KioskPadConfig", "KioskPadCore", "KioskPadEndpoints", "KeypadHAL", .product(name: "Yams", package: "Yams")],
            path: "Sources/Door/DoorConfig", swiftSettings: strict
        ),
        // The site server's config file (`kioskpad-verifier`): `server:`, its store and console.
        .target(
            name: "SiteConfig",
            dependencies: ["KioskPadConfig", "KioskPadCore", "KioskPadEndpoints", .product(name: "Yams", package: "Yams")],
            path: "Sources/Site/SiteConfig", swiftSettings: strict
        ),
        // The terminal at run time: entry model, display, verifier and key source driven
        // by one controller. It builds nothing from config.
        .target(
            name: "DoorController",
            dependencies: [
                "KioskPadCore", "KeypadHAL", "KeypadDisplay", "KioskPadAccess",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Door/DoorController",
            swiftSettings: strict
        ),
        // What a door terminal runs around entry, built by DoorAssembly: door relay, feedback,
        // journal, event forwarding, metrics, health, systemd notification, and every
        // long-running service (the runner, watchdog, inputs, replica sync, MQTT, reload).
        .target(
            name: "DoorServices",
            dependencies: [
                "DoorController", "KioskPadCore", "KeypadHAL", "KeypadDisplay", "KioskPadAccess", "DoorVerifierClient", "KioskPadStorage",
                "DoorHomeAssistant", "DoorOfflineReplica", "CKernelClock", "KioskPadThreads",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Door/DoorServices",
            swiftSettings: strict
        ),
        // The composition root: turns a configuration into running parts for every command,
        // one factory per area, in an order each factory states. It runs nothing itself.
        .target(
            name: "DoorAssembly",
            dependencies: [
                "DoorController", "DoorServices", "KioskPadConfig", "DoorConfig", "DoorHomeAssistant", "DoorOSDP",
                "KioskPadCore", "KeypadHAL", "KeypadDisplay", "KioskPadAccess", "DoorVerifierClient", "DoorOfflineReplica", "KioskPadEndpoints",
                "KioskPadStorage", "KioskPadThreads",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Sources/Door/DoorAssembly",
            swiftSettings: strict
        ),
        // The door's tools: keytest, the display test, `osdp keyset`, the state-directory
        // check and `door off`, on the parts the composition root makes.
        .target(
            name: "DoorTools",
            dependencies: ["DoorAssembly", "DoorOSDP", "KeypadHAL", "KeypadDisplay", "DoorConfig", "KioskPadConfig", "KioskPadCore", "KioskPadThreads"],
            path: "Sources/Door/DoorTools",
            swiftSettings: strict
        ),
        // The process's task and main-actor executors: a fixed thread pool whose idle threads
        // wake for nothing (libdispatch's pool, the runtime's default on Linux, wakes every second).
        .target(name: "KioskPadExecutors", dependencies: ["KioskPadCore", "KioskPadThreads"], path: "Sources/Shared/KioskPadExecutors", swiftSettings: strict),
        // Threads of the process's own, named for the kernel: the blocking work (file writes
        // and fsyncs, waits, PIN hashing) off Swift's cooperative pool.
        .target(name: "KioskPadThreads", path: "Sources/Shared/KioskPadThreads", swiftSettings: strict),
        // What both executables' commands share: the entry point and its exit codes, log lines
        // for journald, reading a PIN or password from stdin, waiting for a signal.
        .target(
            name: "KioskPadCommandLine",
            dependencies: [
                "KioskPadCore", "KioskPadConfig", "KioskPadExecutors", "TerminalIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Shared/KioskPadCommandLine",
            swiftSettings: strict
        ),
        // `kioskpad`, the door terminal: parses arguments, asks the assembly for parts, runs
        // them. No server, SQL or console code: `kioskpad verifier ...` runs `kioskpad-verifier`.
        .executableTarget(
            name: "DoorCLI",
            dependencies: [
                "KioskPadCommandLine", "DoorAssembly", "DoorTools", "DoorController", "KioskPadConfig", "DoorConfig", "KioskPadAccess", "KioskPadCore",
                "DoorOfflineReplica", "KioskPadEndpoints", "DoorServices", "KioskPadStorage", "TerminalIO", "CGlibcFloor",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Door/DoorCLI",
            swiftSettings: strict,
            linkerSettings: leanExecutable + startupCodeFirst("kioskpad")
        ),
        // `kioskpad-verifier`, the site server and its tools (`kioskpad verifier ...`).
        .executableTarget(
            name: "SiteCLI",
            dependencies: [
                "KioskPadCommandLine", "KioskPadConfig", "SiteConfig", "KioskPadAccess", "KioskPadCore", "KioskPadStorage",
                "SiteAssembly", "SiteConsole", "SiteCore", "CGlibcFloor",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Sources/Site/SiteCLI",
            swiftSettings: strict,
            linkerSettings: leanExecutable
        ),
        // Hardware-in-loop tooling: emulates a key matrix on a gpio-sim chip (Tests/HIL/run.sh).
        .executableTarget(name: "keypad-emu", dependencies: ["CGlibcFloor"], path: "Tests/HIL/KeypadEmulator"),
        // Test doubles shared by test targets (none live in production modules): manual
        // clock, mock key matrix and backend, scripted keys, recording display, I2C bus and
        // outputs, the HD44780 + PCF8574 emulator, loopback HTTP servers.
        .target(
            name: "KeypadTestSupport", dependencies: ["KeypadDisplay", "KeypadHAL", "KioskPadCore", .product(name: "Logging", package: "swift-log")],
            path: "Tests/Support", swiftSettings: strict),
        // The real peers the server-side and broker tests start: a PostgreSQL server per test,
        // a mosquitto broker, libosdp's reader. The door's test doubles stay in KeypadTestSupport.
        .target(name: "TestPeers", dependencies: ["KeypadTestSupport"], path: "Tests/Peers", swiftSettings: strict),
        // A verifier store per test, SQLite or a real PostgreSQL, for suites that run against both.
        .target(
            name: "VerifierTestSupport",
            dependencies: [
                "SiteCore", "SiteSQL", "SiteSQLite", "SitePostgres", "SiteHTTP", "KioskPadAccess", "KioskPadCore", "KeypadTestSupport", "TestPeers",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                // A store's statements counted (CountingSiteDatabase).
                .product(name: "SQLKit", package: "sql-kit"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Tests/VerifierSupport", swiftSettings: strict),
        .testTarget(name: "KioskPadCoreTests", dependencies: ["KioskPadCore", "KeypadTestSupport"], swiftSettings: strict),
        .testTarget(name: "KeypadHALTests", dependencies: ["KeypadHAL", "KioskPadCore", "KeypadTestSupport"], swiftSettings: strict),
        // The OSDP codec, Secure Channel and sessions; and the bus against libosdp's reader
        // (PyPI) over a pseudo-terminal pair (socat).
        .testTarget(
            name: "DoorOSDPTests", dependencies: ["DoorOSDP", "KeypadHAL", "KeypadDisplay", "DoorController", "KioskPadCore", "KioskPadAccess", "TestPeers"],
            swiftSettings: strict),
        .testTarget(name: "KeypadDisplayTests", dependencies: ["KeypadDisplay", "KioskPadCore", "KeypadTestSupport"], swiftSettings: strict),
        .testTarget(
            name: "KioskPadAccessTests",
            dependencies: ["KioskPadAccess", "KioskPadEndpoints", "KioskPadCore", "KioskPadStorage", "KioskPadThreads", "KeypadTestSupport"],
            swiftSettings: strict),
        .testTarget(
            name: "SiteCoreTests",
            dependencies: [
                "SiteCore", "SiteSQL", "SiteSQLite", "KioskPadAccess", "KioskPadCore", "KioskPadEndpoints", "KeypadTestSupport", "VerifierTestSupport",
            ],
            swiftSettings: strict
        ),
        // The schema on both databases: the same at every version, and older databases upgraded.
        .testTarget(
            name: "SiteSQLTests",
            dependencies: [
                "SiteSQL", "SiteCore", "SitePostgres", "KioskPadAccess", "KioskPadCore", "VerifierTestSupport", "TestPeers", "KeypadTestSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            // Databases as released versions left them (SQL text) and the script that made them.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        // The doors' endpoints over HTTP: each decision's status and body, and the server's limits.
        .testTarget(
            name: "SiteHTTPTests",
            dependencies: [
                "SiteHTTP", "SiteCore", "DoorVerifierClient", "KioskPadAccess", "KioskPadCore", "KeypadTestSupport", "VerifierTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DoorVerifierClientTests",
            dependencies: [
                "DoorVerifierClient", "KioskPadAccess", "KioskPadCore", "SiteHTTP", "SiteCore",
                "KioskPadEndpoints", "KeypadTestSupport", "VerifierTestSupport",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // A door's replica: the keeper's checks, offline decisions, and the fallback behind the client.
        .testTarget(
            name: "DoorOfflineReplicaTests",
            dependencies: [
                "DoorOfflineReplica", "DoorVerifierClient", "KioskPadAccess", "KioskPadCore", "KioskPadStorage", "KeypadTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DoorServicesTests",
            dependencies: [
                "DoorServices", "DoorController", "KeypadHAL", "KioskPadCore", "KioskPadAccess", "DoorVerifierClient", "KeypadTestSupport",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The site console over real loopback HTTP (Hummingbird's live test client), on both stores.
        .testTarget(
            name: "SiteConsoleTests",
            dependencies: [
                "SiteConsole", "SiteCore", "SiteSignIn", "KioskPadAccess", "KioskPadCore", "KioskPadEndpoints", "KeypadTestSupport",
                "VerifierTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SiteSignInTests",
            dependencies: [
                "SiteSignIn", "SiteCore", "KioskPadEndpoints", .product(name: "JWTKit", package: "jwt-kit"), .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "GlibcFloorTests", dependencies: ["CGlibcFloor"], swiftSettings: strict),
        .testTarget(name: "KioskPadExecutorsTests", dependencies: ["KioskPadExecutors", "KioskPadThreads"], swiftSettings: strict),
        .testTarget(
            name: "KioskPadCommandLineTests", dependencies: ["KioskPadCommandLine", .product(name: "Logging", package: "swift-log")], swiftSettings: strict),
        // The MQTT link and Home Assistant bridge against a real mosquitto broker on loopback.
        .testTarget(
            name: "DoorHomeAssistantTests",
            dependencies: [
                "DoorHomeAssistant", "DoorController", "KioskPadCore", "KeypadTestSupport", "TestPeers", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "DoorConfigTests", dependencies: ["DoorConfig", "KioskPadConfig", "KioskPadCore", "KeypadHAL", "SiteCore"], swiftSettings: strict),
        .testTarget(name: "SiteConfigTests", dependencies: ["SiteConfig", "KioskPadConfig", "KioskPadCore", "KioskPadEndpoints"], swiftSettings: strict),
        .testTarget(
            name: "DoorControllerTests",
            dependencies: ["DoorController", "KeypadDisplay", "KeypadHAL", "KioskPadAccess", "KioskPadCore", "KeypadTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "DoorAssemblyTests",
            dependencies: ["DoorAssembly", "DoorConfig", "DoorServices", "KeypadDisplay", "KioskPadCore", "KioskPadAccess", "KeypadTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "DoorToolsTests", dependencies: ["DoorTools"], swiftSettings: strict),
        // The built `kioskpad` binary run as a user would, against real loopback servers.
        .testTarget(
            name: "KioskPadCLITests",
            dependencies: [
                "KioskPadAccess", "DoorVerifierClient", "KioskPadCore", "KeypadTestSupport", "TestPeers", "VerifierTestSupport", "SiteSQL",
                // A door's push channel, remote-command runner and relay in the test process (remote unlock end to end).
                "DoorOfflineReplica", "DoorServices", "DoorController",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)
