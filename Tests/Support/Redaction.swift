import Foundation

/// Replaces every UUID with `<uuid>`. Record and attempt ids are random hex and may contain
/// any four digits, so a search for a typed PIN must not look inside them.
public func redactingUUIDs(_ text: String) -> String {
    text.replacingOccurrences(
        of: "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", with: "<uuid>",
        options: .regularExpression)
}

/// `redactingUUIDs`, and every decimal fraction (`0.0012345`, `1.5e-05`) replaced by `<n>`.
/// Measured values such as a latency sum are free to contain any four digits; a typed PIN
/// is a run of digits without a decimal point.
public func redactingMeasuredValues(_ text: String) -> String {
    redactingUUIDs(text).replacingOccurrences(
        of: "[0-9]*\\.[0-9]+([eE][-+]?[0-9]+)?", with: "<n>", options: .regularExpression)
}
