import ArgumentParser
import DoorAssembly
import DoorController
import KeypadHAL
import KioskPadCommandLine
import KioskPadConfig
import KioskPadCore

/// `kioskpad keytest`: a wiring check that prints every key event until Ctrl-C.
struct KeytestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keytest",
        abstract: "Wiring check: print every key press and release with row, column and label until Ctrl-C.",
        discussion:
            "Also prints hold events and warnings for ghosting (three keys forming a rectangle on a keypad without diodes) and stuck keys. On exit it prints scan statistics."
    )

    @Option(help: "Config file with a keypad section (driver: gpio, evdev or wiegand).")
    var config: String

    func run() async throws {
        let configuration = try ConfigLoader.load(path: config)
        if configuration.keypad.driver == .evdev, let evdev = configuration.keypad.evdev {
            try await evdevTest(evdev)
            return
        }
        if configuration.keypad.driver == .wiegand, let wiegand = configuration.keypad.wiegand {
            try await wiegandTest(wiegand, pinDigits: configuration.entry.minLength...configuration.entry.maxLength)
            return
        }
        let gpio = try KeypadAssembly.gpioConfiguration(configuration.keypad)
        let loop = try KeypadAssembly.scanLoop(gpio)
        let thread = ScanThread(loop: loop)
        writeLine(
            "keytest: chip \(gpio.chip), \(gpio.rows.count) rows x \(gpio.columns.count) columns, \(GPIOBackendFactory.library); press keys, Ctrl-C to stop")
        let failure = AsyncStream.makeStream(of: String.self)
        thread.start(
            deliver: { writeLine(KeytestCommand.line(for: $0)) },
            failed: { error in
                failure.continuation.yield("\(error)")
                failure.continuation.finish()
            })
        let outcome = await KeytestCommand.untilSignalOrFailure(failure)
        if let stats = thread.stopAndCollect() {
            writeLine(
                "stats: scans=\(stats.scans) idle_waits=\(stats.idleWaits) value_calls_per_scan=\(stats.valueCallsPerScan) rechecks=\(stats.rechecks) rows=\(gpio.rows.count)"
            )
        }
        if let outcome { throw RuntimeFailure(description: outcome) }
    }

    /// An input device: each key press as the terminal sees it, until Ctrl-C or unplug.
    private func evdevTest(_ evdev: EvdevKeypadConfiguration) async throws {
        let source = try EvdevKeySource(device: evdev.device, map: EvdevKeyMap(overrides: evdev.keyMap))
        writeLine("keytest: input device \(source.path) '\(source.name)', grabbed; press keys, Ctrl-C to stop")
        try await KeytestCommand.printKeys(of: source, ended: "the device closed") { writeLine(KeytestCommand.line(for: $0)) }
    }

    /// A Wiegand keypad: each key, each whole-PIN frame (its length, never its digits) and
    /// each dropped frame with why, until Ctrl-C.
    private func wiegandTest(_ wiegand: WiegandKeypadConfiguration, pinDigits: ClosedRange<Int>) async throws {
        let source = try WiegandKeySource(
            chip: wiegand.chip, d0: wiegand.d0, d1: wiegand.d1, frameGap: wiegand.frameGap, pinDigits: pinDigits,
            longFrames: wiegand.longFrames,
            report: { report in
                switch report {
                case .dropped(let reason): writeLine("warning: wiegand frame dropped: \(reason)")
                case .wholePIN(let bits, let digits): writeLine("frame   \(bits) bits: a whole PIN of \(digits) digits (not shown), then submit")
                case .card(let bits, let data): writeLine(KeytestCommand.cardLine(bits: bits, data: data))
                }
            })
        writeLine(
            "keytest: wiegand on chip \(wiegand.chip), d0 \(wiegand.d0), d1 \(wiegand.d1), frame gap \(wiegand.frameGap.wholeMilliseconds) ms, \(GPIOBackendFactory.library); press keys, Ctrl-C to stop"
        )
        // Only labelled keys: a whole-PIN frame's digits are typed as actions and never shown.
        try await KeytestCommand.printKeys(of: source, ended: "the lines closed") { key in
            if case .label = key { writeLine(KeytestCommand.line(for: key)) }
        }
    }

    /// A card as keytest shows it, to enrol it: the facility code and number, and the value
    /// the verifier gets (hash that with `kioskpad pin hash` for a `:card` users-file line).
    static func cardLine(bits: Int, data: UInt32) -> String {
        // Both frames end in a 16-bit number; the facility code is the bits above it (8 or 16).
        let digits = WiegandLongFrames.cardDigits(bits: bits)
        let value = String(data)
        let padded = String(repeating: "0", count: max(0, digits - value.count)) + value
        return "card    \(bits) bits: facility \(data >> 16), number \(data & 0xFFFF), value \(padded)"
    }

    /// Runs `source`, giving `print` each key, until Ctrl-C (returns) or the source ends or
    /// fails (throws, with `ended` when it ended without an error).
    static func printKeys(of source: some KeySource, ended: String, print: @escaping @Sendable (KeyInput) -> Void) async throws {
        let failure = AsyncStream.makeStream(of: String.self)
        let run = source.start(
            deliver: { event in
                if case .key(let key) = event { print(key) }
            },
            finished: { error in
                failure.continuation.yield(error.map { "\($0)" } ?? ended)
                failure.continuation.finish()
            })
        let outcome = await KeytestCommand.untilSignalOrFailure(failure)
        // A source's stop may wait for its thread to end: on the waits thread, not this task's.
        _ = try? await WorkThreads.waits.run { run.stop() }
        if let outcome { throw RuntimeFailure(description: outcome) }
    }

    /// Waits for Ctrl-C/SIGTERM (nil) or the first failure message on `failure`.
    static func untilSignalOrFailure(
        _ failure: (stream: AsyncStream<String>, continuation: AsyncStream<String>.Continuation)
    ) async -> String? {
        await withTaskGroup(of: String?.self) { group in
            group.addTask {
                _ = await SignalWaiter.wait()
                return nil
            }
            group.addTask {
                for await message in failure.stream { return message }
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            failure.continuation.finish()
            return first
        }
    }

    static func line(for key: KeyInput) -> String {
        switch key {
        case .label(let label): return "press   key '\(label)'"
        case .action(let action): return "press   \(action)"
        }
    }

    static func line(for event: ScanEvent) -> String {
        func describe(_ key: MatrixKey) -> String { "row \(key.row) column \(key.column) key '\(key.label)'" }
        switch event {
        case .pressed(let key): return "press   \(describe(key))"
        case .released(let key): return "release \(describe(key))"
        case .held(let key): return "hold    \(describe(key))"
        case .stuck(let key): return "warning: stuck key: \(describe(key)) is ignored until released"
        case .ghosting(let keys):
            let labels = keys.map { "'\($0.label)'" }.joined(separator: " ")
            return
                "warning: ghosting: keys \(labels) form a rectangle; no key is read until one is released (a keypad with diodes avoids this: has_diodes: true)"
        }
    }
}
