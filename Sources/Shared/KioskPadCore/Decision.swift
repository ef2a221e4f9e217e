/// An attempt's `decision` as the door journals it and the site audits it: `granted`,
/// `denied`, or (the door only) `error`, when no usable answer came.
public enum Decision: String, Sendable, CaseIterable {
    case granted
    case denied
    case error

    /// The decisions a verifier answers (`granted`, `denied`), as the site audits them.
    public static let answered: [Decision] = [.granted, .denied]
}
