import KioskPadCore
import SiteCore

/// A change's notes (``ChangeNote``) across the console's redirect after a POST: the doors
/// the site has not heard of travel in the query (`unknown=a,b`) and are said beside the
/// page's notice. Only door ids are carried, each checked again when read, so the page never
/// repeats other text from a link.
extension ConsoleHandler {
    /// `&unknown=...` for `notes`, or nothing.
    static func query(carrying notes: [ChangeNote]) -> String {
        let doors = notes.compactMap(\.door)
        return doors.isEmpty ? "" : "&unknown=" + FormBody.encode(doors.joined(separator: ","))
    }

    /// The notes a redirect carried.
    static func carriedNotes(_ form: FormBody) -> [ChangeNote] {
        guard let doors = form.text("unknown") else { return [] }
        return doors.split(separator: ",").map(String.init).filter(Identifier.isValid).prefix(32).map(ChangeNote.unknownDoor)
    }

    /// `notice`, then each note as a sentence of its own.
    static func notice(_ notice: String?, with notes: [ChangeNote]) -> String? {
        guard !notes.isEmpty else { return notice }
        let sentences = notes.map { note -> String in
            let text = note.description
            return text.prefix(1).uppercased() + text.dropFirst() + "."
        }
        return ([notice].compactMap { $0 } + sentences).joined(separator: " ")
    }

    /// The doors' rules and the calendar as the signed-in administrator (``DoorRuleChanges``).
    func doorRules(_ visit: Visit) -> DoorRuleChanges {
        DoorRuleChanges(administration: services.administration, changes: changes(visit))
    }

    /// The users' changes as the signed-in administrator (``UsersEditing``).
    func users(_ visit: Visit) -> UsersEditing {
        UsersEditing(administration: services.administration, replica: services.replica, lookupKey: services.lookupKey, changes: changes(visit))
    }
}
