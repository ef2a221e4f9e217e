import KioskPadAccess
import Testing

/// A rule's and an access group's one stored spelling (``RuleFields/text``) reads back as
/// the same value, and a stored text that is no rule is refused by name, as typed words are.
@Suite("Rules and access groups stored as their text")
struct RuleFieldsTests {
    @Test func everyFieldOfARuleReadsBackFromItsText() throws {
        let rule = try AccessRule(
            text: "doors=front,back schedule=office,evening levels=cleaning groups=night valid_from=2027-01-01 valid_until=2027-12-31 disabled responder staff"
        )
        #expect(Set(rule.doors ?? []) == ["front", "back"] && rule.levels == ["cleaning"] && rule.groups == ["night"] && rule.staff)
        #expect(try AccessRule(text: rule.text) == rule)
        #expect(try AccessRule(text: "") == AccessRule() && AccessRule().text.isEmpty, "the default rule is the empty text")
        #expect(try AccessRule(text: "doors=front  schedule=office") == AccessRule(text: "doors=front schedule=office"), "spaces between fields")
    }

    @Test func eachAccessGroupReadsBackFromItsText() throws {
        let doorGroup = try DoorGroup(text: "doors=front,back")
        #expect(try DoorGroup(text: doorGroup.text) == doorGroup)
        let level = try AccessLevel(text: "door_groups=ground doors=lab schedule=office")
        #expect(try AccessLevel(text: level.text) == level)
        let group = try UserGroup(text: "levels=cleaning")
        #expect(try UserGroup(text: group.text) == group)
    }

    @Test func aTextThatIsNoRuleIsRefusedNamingTheField() {
        #expect(throws: (any Error).self) { try AccessRule(text: "doors=front sometimes") }
        do {
            _ = try AccessRule(text: "valid_until=tomorrow")
            Issue.record("accepted a date that is no date")
        } catch {
            #expect("\(error)".contains("valid_until=tomorrow"), "\(error)")
        }
    }
}
