/// Which PCF8574 pin (P0...P7) drives each HD44780 signal. The default is the common
/// backpack layout: RS=P0, RW=P1, E=P2, backlight=P3, D4..D7=P4..P7.
public struct HD44780PinMap: Equatable, Sendable {
    public var rs: Int
    public var rw: Int
    public var enable: Int
    public var backlight: Int
    public var d4: Int
    public var d5: Int
    public var d6: Int
    public var d7: Int

    public static let standard = HD44780PinMap(rs: 0, rw: 1, enable: 2, backlight: 3, d4: 4, d5: 5, d6: 6, d7: 7)

    public init(rs: Int, rw: Int, enable: Int, backlight: Int, d4: Int, d5: Int, d6: Int, d7: Int) {
        self.rs = rs
        self.rw = rw
        self.enable = enable
        self.backlight = backlight
        self.d4 = d4
        self.d5 = d5
        self.d6 = d6
        self.d7 = d7
    }

    /// The pins in config order: rs, rw, e, backlight, d4, d5, d6, d7.
    public var pins: [Int] { [rs, rw, enable, backlight, d4, d5, d6, d7] }
}
