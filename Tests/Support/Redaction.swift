import Foundation

/// Replaces every UUID with `<uuid>`. Record and attempt ids are random hex and may contain
/// any four digits, so a search for a typed PIN must not look inside them.
public func redactingUUIDs(_ text: String) -> String {
    text.replacingOccurrences(
        of: "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}", with: "<uuid>",
        options: .regularExpression)
}
