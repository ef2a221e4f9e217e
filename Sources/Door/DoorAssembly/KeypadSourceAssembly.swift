import DoorConfig
import DoorController
import DoorOSDP
import DoorServices
import KeypadHAL
import KioskPadConfig
import KioskPadCore
import Logging

extension KeypadAssembly {
    /// The GPIO keypad as the terminal's key source, reopened with back-off (1 s doubling to
    /// 30 s) when it is missing or fails. A line the chip does not have throws at once (a
    /// retry cannot fix it); a missing chip, a busy line or a permission may clear, so they
    /// are logged and retried while the rest of the terminal runs. Keypad faults and health
    /// are published on `bus`.
    public static func retryingSource(
        _ gpio: GPIOKeypadConfiguration, bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        let open: @Sendable () throws -> MatrixKeySource = {
            MatrixKeySource(
                loop: try scanLoop(gpio),
                diagnostics: { event in
                    guard let fault = RetryingKeySource.fault(event) else { return }
                    logger.warning("keypad fault", metadata: ["kind": "\(fault.kind)", "detail": "\(fault.detail)"])
                    bus.publish(.keypadFault(kind: fault.kind, detail: fault.detail))
                },
                started: {
                    logger.notice(
                        "keypad ready",
                        metadata: [
                            "chip": "\(gpio.chip)", "matrix": "\(gpio.rows.count)x\(gpio.columns.count)",
                            "library": "\(GPIOBackendFactory.library)",
                        ])
                })
        }
        // "keypad ready" is logged by the scan thread when it starts scanning.
        return try RetryingKeySource.opening(open, bus: bus, logger: logger, ready: nil)
    }

    /// The door's key source for `keypad.driver`: the GPIO matrix (`gpio`, checked before
    /// any line was requested), Wiegand, OSDP readers (sending `osdpCommands`) or an input
    /// device, each reopened with back-off.
    static func doorSource(
        _ keypad: KeypadConfiguration, gpio: GPIOKeypadConfiguration?, osdpCommands: OSDPCommandQueue?, entry: EntryOptions,
        bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        if let gpio { return try retryingSource(gpio, bus: bus, logger: logger) }
        if let wiegand = keypad.wiegand { return try retryingWiegandSource(wiegand, entry: entry, bus: bus, logger: logger) }
        if let osdp = keypad.osdp, let osdpCommands { return try retryingOSDPSource(osdp, commands: osdpCommands, bus: bus, logger: logger) }
        guard let evdev = keypad.evdev else {
            throw KeyedError(key: "keypad.device", message: "is required with driver: evdev")
        }
        return try retryingEvdevSource(evdev, bus: bus, logger: logger)
    }

    /// A kernel input device as the terminal's key source (`driver: evdev`). It must be
    /// there at start (else an error naming `keypad.device`); unplugged later, it is
    /// reported down and reopened with back-off (1 s doubling to 30 s) until it is back.
    public static func retryingEvdevSource(
        _ evdev: EvdevKeypadConfiguration, bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        let map = EvdevKeyMap(overrides: evdev.keyMap)
        let pending = OpenedAtStart(try EvdevKeySource(device: evdev.device, map: map))
        return RetryingKeySource(
            open: {
                let source = try pending.take() ?? EvdevKeySource(device: evdev.device, map: map)
                logger.notice("keypad ready", metadata: ["device": "\(source.path)", "name": "\(source.name)"])
                return source
            },
            report: RetryingKeySource.healthReport(bus: bus, logger: logger))
    }

    /// A USB card reader that types (`card_reader:`) as a second key source of cards only. It
    /// must be there at start (else an error naming `card_reader.device`); unplugged later, it
    /// is logged and reopened with back-off (1 s doubling to 30 s) while the keypad goes on.
    /// A line of digits that is no card is logged with its length, never its digits.
    public static func retryingCardReaderSource(_ cardReader: CardReaderConfiguration, logger: Logger) throws -> RetryingKeySource {
        let reading = EvdevKeySource.Reading.cards(dropped: { digits in
            logger.warning(
                "card reader line dropped",
                metadata: ["digits": "\(digits)", "valid": "\(EvdevCardLine.digits.lowerBound)-\(EvdevCardLine.digits.upperBound) digits then Enter"])
        })
        let open: @Sendable () throws -> EvdevKeySource = {
            try EvdevKeySource(device: cardReader.device, key: "card_reader.device", reading: reading)
        }
        let pending = OpenedAtStart(try open())
        return RetryingKeySource(
            open: {
                let source = try pending.take() ?? open()
                logger.notice("card reader ready", metadata: ["device": "\(source.path)", "name": "\(source.name)"])
                return source
            },
            report: { ok, problem in
                if ok {
                    logger.notice("card reader recovered")
                } else {
                    logger.error("card reader failed; retrying", metadata: ["problem": "\(problem ?? "")"])
                }
            })
    }

    /// A Wiegand keypad on two GPIO lines as the terminal's key source (`driver: wiegand`),
    /// reopened with back-off like the matrix. Whole-PIN frames fit the entry's
    /// `min_length...max_length`. Each dropped frame is published on `bus` (metrics count
    /// them; the journal records them at a rate limit) and logged at most once per 10 s.
    public static func retryingWiegandSource(
        _ wiegand: WiegandKeypadConfiguration, entry: EntryOptions, bus: TerminalEventBus, logger: Logger
    ) throws -> RetryingKeySource {
        let report = WiegandReports.publisher(bus: bus, logger: logger)
        let open: @Sendable () throws -> WiegandKeySource = {
            try WiegandKeySource(
                chip: wiegand.chip, d0: wiegand.d0, d1: wiegand.d1, frameGap: wiegand.frameGap,
                pinDigits: entry.minLength...entry.maxLength, longFrames: wiegand.longFrames,
                report: report)
        }
        return try RetryingKeySource.opening(
            open, bus: bus, logger: logger,
            ready: [
                "chip": "\(wiegand.chip)", "wiegand": "d0 \(wiegand.d0), d1 \(wiegand.d1)", "library": "\(GPIOBackendFactory.library)",
            ])
    }
}
