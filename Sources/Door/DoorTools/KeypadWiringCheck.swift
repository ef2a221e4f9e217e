import DoorAssembly
import DoorConfig
import DoorOSDP
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import KioskPadThreads
import Synchronization

/// `kioskpad keytest`'s hardware side: opens the configured keypad (a GPIO matrix, an input
/// device or Wiegand lines) and turns what it reads into the lines keytest prints, so the
/// command reaches the hardware only through this composition root. A whole-PIN Wiegand
/// frame's digits are never printed, only their count.
public final class KeypadWiringCheck: Sendable {
    /// The first line keytest prints: what was opened and how to stop.
    public var banner: String {
        keypadBanner + (cardReader.map { "; card reader \($0.path) '\($0.name)', grabbed" } ?? "")
    }
    private let keypadBanner: String
    private let reader: Reader
    private let print: @Sendable (String) -> Void
    private let running = Mutex<KeySourceRun?>(nil)
    /// The door's own USB card reader (`card_reader:`), read beside the keypad.
    private let cardReader: EvdevKeySource?
    private let cardReaderRun = Mutex<KeySourceRun?>(nil)

    private enum Reader: Sendable {
        case matrix(ScanThread, rows: Int)
        /// A key source; `ended` is the failure when it ends without an error; `shown` picks
        /// the keys printed.
        case keys(any KeySource, ended: String, shown: @Sendable (KeyInput) -> Bool)
    }

    /// Opens the keypad `configuration.keypad` names; `print` gets every line after the banner.
    public init(_ configuration: KioskPadConfiguration, print: @escaping @Sendable (String) -> Void) throws {
        self.print = print
        let keypad = configuration.keypad
        if keypad.driver == .evdev, let evdev = keypad.evdev {
            let source = try EvdevKeySource(device: evdev.device, map: EvdevKeyMap(overrides: evdev.keyMap))
            keypadBanner = "keytest: input device \(source.path) '\(source.name)', grabbed; press keys, Ctrl-C to stop"
            reader = .keys(source, ended: "the device closed", shown: { _ in true })
        } else if keypad.driver == .wiegand, let wiegand = keypad.wiegand {
            let source = try WiegandKeySource(
                chip: wiegand.chip, d0: wiegand.d0, d1: wiegand.d1, frameGap: wiegand.frameGap,
                pinDigits: configuration.entry.minLength...configuration.entry.maxLength, longFrames: wiegand.longFrames,
                report: { report in
                    switch report {
                    case .dropped(let reason): print("warning: wiegand frame dropped: \(reason)")
                    case .wholePIN(let bits, let digits): print("frame   \(bits) bits: a whole PIN of \(digits) digits (not shown), then submit")
                    case .card(let bits, let data): print(KeypadWiringCheck.cardLine(bits: bits, data: data))
                    }
                })
            keypadBanner =
                "keytest: wiegand on chip \(wiegand.chip), d0 \(wiegand.d0), d1 \(wiegand.d1), frame gap \(wiegand.frameGap.wholeMilliseconds) ms, \(GPIOBackendFactory.library); press keys, Ctrl-C to stop"
            // Only labelled keys: a whole-PIN frame's digits are typed as actions and never shown.
            reader = .keys(
                source, ended: "the lines closed",
                shown: { key in
                    if case .label = key { return true }
                    return false
                })
        } else if keypad.driver == .osdp, let osdp = keypad.osdp {
            let readers = try KeypadAssembly.osdpReaders(osdp)
            let source = try OSDPKeySource(
                device: osdp.device, baud: osdp.baud, readers: readers, pollInterval: osdp.pollInterval, offlineAfter: osdp.offlineAfter,
                commands: OSDPCommandQueue(), report: { address, event in KeypadWiringCheck.osdpLine(address: address, event).map(print) })
            keypadBanner =
                "keytest: OSDP on \(osdp.device) at \(osdp.baud) baud, readers \(readers.map { "\($0.address)" }.joined(separator: ", ")); type keys or present a card, Ctrl-C to stop"
            reader = .keys(source, ended: "the line closed", shown: { _ in true })
        } else {
            let gpio = try keypad.gpioSection()
            let thread = ScanThread(loop: try KeypadAssembly.scanLoop(gpio))
            keypadBanner =
                "keytest: chip \(gpio.chip), \(gpio.rows.count) rows x \(gpio.columns.count) columns, \(GPIOBackendFactory.library); press keys, Ctrl-C to stop"
            reader = .matrix(thread, rows: gpio.rows.count)
        }
        cardReader = try configuration.cardReader.map { cardReader in
            try EvdevKeySource(
                device: cardReader.device, key: "card_reader.device",
                reading: .cards(dropped: { digits in
                    print(
                        "warning: card reader line of \(digits) digits dropped (\(EvdevCardLine.digits.lowerBound)-\(EvdevCardLine.digits.upperBound) digits then Enter make a card)"
                    )
                }))
        }
    }

    /// Starts reading; `failed` is called once if the keypad fails or its input ends.
    public func start(failed: @escaping @Sendable (String) -> Void) {
        let print = self.print
        switch reader {
        case .matrix(let thread, _):
            thread.start(deliver: { print(KeypadWiringCheck.line(for: $0)) }, failed: { failed("\($0)") })
        case .keys(let source, let ended, let shown):
            let run = source.start(
                deliver: { event in
                    if case .key(let key) = event, shown(key) { print(KeypadWiringCheck.line(for: key)) }
                },
                finished: { error in failed(error.map { "\($0)" } ?? ended) })
            running.withLock { $0 = run }
        }
        if let cardReader {
            let run = cardReader.start(
                deliver: { event in
                    guard case .card(let digits) = event else { return }
                    print("card    typed by the card reader: value \(digits.withASCIIBytes { String(decoding: $0, as: UTF8.self) })")
                },
                finished: { error in failed(error.map { "card reader: \($0)" } ?? "card reader: the device closed") })
            cardReaderRun.withLock { $0 = run }
        }
    }

    /// Stops reading and waits for the reader's thread to end (on the waits thread, not the
    /// caller's); returns the matrix's scan statistics as a line, or nil for other keypads.
    public func stop() async -> String? {
        let cardRun = cardReaderRun.withLock { $0 }
        _ = try? await WorkThreads.waits.run { cardRun?.stop() }
        switch reader {
        case .matrix(let thread, let rows):
            guard let stats = try? await WorkThreads.waits.run({ thread.stopAndCollect() }) else { return nil }
            return
                "stats: scans=\(stats.scans) idle_waits=\(stats.idleWaits) value_calls_per_scan=\(stats.valueCallsPerScan) rechecks=\(stats.rechecks) rows=\(rows)"
        case .keys:
            let run = running.withLock { $0 }
            _ = try? await WorkThreads.waits.run { run?.stop() }
            return nil
        }
    }

    /// A card as keytest shows it, to enrol it: the facility code and number, and the value
    /// the verifier gets (hash that with `kioskpad pin hash` for a `:card` users-file line).
    public static func cardLine(bits: Int, data: UInt32) -> String {
        // Both frames end in a 16-bit number; the facility code is the bits above it (8 or 16).
        let digits = WiegandLongFrames.cardDigits(bits: bits)
        let value = String(data)
        let padded = String(repeating: "0", count: max(0, digits - value.count)) + value
        return "card    \(bits) bits: facility \(data >> 16), number \(data & 0xFFFF), value \(padded)"
    }

    /// What keytest prints for a reader's report: its state, and a card's value (to enrol it);
    /// keys are printed as they reach the entry.
    static func osdpLine(address: UInt8, _ event: OSDPReaderEvent) -> String? {
        switch event {
        case .online(let secure): return "reader  \(address) online\(secure ? ", Secure Channel" : ", in the clear")"
        case .offline: return "warning: reader \(address) offline"
        case .refused(let reason): return "warning: reader \(address) refused: \(reason)"
        case .tamper(let active): return "reader  \(address) tamper \(active ? "active" : "cleared")"
        case .power(let ok): return "reader  \(address) power \(ok ? "restored" : "failed")"
        case .dropped(let reason): return "warning: reader \(address) message dropped: \(reason)"
        case .nak(let code): return "warning: reader \(address) refused a command (NAK \(code))"
        case .card(let card):
            switch OSDPKeySource.digits(of: card) {
            case .success(let digits):
                return
                    "card    \(card.bits) \(card.rawFormat == nil ? "characters" : "bits"): value \(digits.withASCIIBytes { String(decoding: $0, as: UTF8.self) })"
            case .failure(let reason): return "warning: reader \(address) card dropped: \(reason.rawValue)"
            }
        case .keys, .keySetAccepted: return nil
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
