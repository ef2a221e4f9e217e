/// A rule or an access group's definition as fields (`doors=a,b`, `schedule=x`, `staff`):
/// the words the users file, the command line and the API take. ``text``, the fields one
/// space apart, is the one spelling it is stored, audited and carried in replicas in, and
/// ``init(text:)`` its one reader, so the two cannot drift apart.
public protocol RuleFields {
    /// The fields, leaving out what is the default.
    var fields: [String] { get }
    /// The value of `fields`; an error names the field and what would be valid.
    init(fields: [Substring]) throws
}

extension RuleFields {
    /// The fields one space apart (empty for the default).
    public var text: String { fields.joined(separator: " ") }

    /// The value of its ``text``; an error names the field and what would be valid.
    public init(text: some StringProtocol) throws {
        try self.init(fields: text.split(separator: " ").map { Substring($0) })
    }
}

extension AccessRule: RuleFields {}
extension DoorGroup: RuleFields {}
extension AccessLevel: RuleFields {}
extension UserGroup: RuleFields {}
