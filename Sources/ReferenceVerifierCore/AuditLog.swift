import DurableStorage

/// The reference verifier's append-only audit log: a ``JSONLinesFile`` of string fields,
/// fsynced after every record. Records carry who, when and what was decided - never a PIN
/// or code.
public final class AuditLog: Sendable {
    private let file: JSONLinesFile
    public var path: String { file.path }

    public init(path: String) throws {
        file = try JSONLinesFile(path: path)
    }

    /// Appends one record (string values only) and fsyncs.
    public func append(_ fields: [(String, String)]) throws {
        try file.append(fields.map { ($0.0, .text($0.1)) })
    }
}
