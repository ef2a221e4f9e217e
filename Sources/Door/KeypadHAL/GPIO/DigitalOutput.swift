/// One on/off output: the door relay, a buzzer, an LED. ``GPIOOutputLine`` drives a real
/// line; the tests' `RecordingOutput` keeps what it was told.
public protocol DigitalOutput: AnyObject, Sendable {
    func set(_ on: Bool) throws
}
