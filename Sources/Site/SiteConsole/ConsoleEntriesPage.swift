import Foundation
import Hummingbird
import SiteCore

/// Who entered: the verifier's decisions (audit) and the doors' events, newest first,
/// filtered by door, user, decision and time range, 50 a page, live on the first page, and
/// as CSV (up to ``ConsoleHandler/csvRows`` rows).
extension ConsoleHandler {
    static let entriesPerPage = 50
    static let csvRows = 100_000

    /// The filter a query asks for, within the doors `visit`'s administrator may see, or an
    /// error naming the field.
    func entryFilter(_ form: FormBody, zone: TimeZone, visit: Visit) async throws -> Result<EntryFilter, EntryFilterError> {
        var filter = EntryFilter(door: form.text("door"), user: form.text("user"), decision: form.text("decision"))
        if let doors = try await visibleDoors(visit) { filter.within = doors.sorted() }
        if let decision = filter.decision, !EntryFilter.decisions.contains(decision) {
            return .failure(EntryFilterError(description: "Decision “\(decision)” is not one of \(EntryFilter.decisions.joined(separator: ", "))."))
        }
        for (field, label) in [("from", "From"), ("until", "Until")] {
            guard let text = form.text(field) else { continue }
            guard let date = ConsoleTime.parse(text, zone) else {
                return .failure(EntryFilterError(description: "\(label) “\(text)” is not YYYY-MM-DD or YYYY-MM-DD HH:MM."))
            }
            if field == "from" { filter.from = date } else { filter.until = date }
        }
        return .success(filter)
    }

    struct EntryFilterError: Error, CustomStringConvertible {
        let description: String
    }

    /// The query string that asks for `filter`'s fields as the form gave them.
    static func query(_ form: FormBody, page: Int? = nil) -> String {
        var parts: [String] = []
        for field in ["door", "user", "decision", "from", "until"] {
            if let value = form.text(field) { parts.append("\(field)=\(FormBody.encode(value))") }
        }
        if let page { parts.append("page=\(page)") }
        return parts.joined(separator: "&")
    }

    func entryRows(_ filter: EntryFilter, offset: Int, limit: Int, zone: TimeZone) async throws -> [[String: String]] {
        try await services.console.entries(filter, offset: offset, limit: limit).map { row in
            ["time": ConsoleTime.local(row.time, zone), "door": row.door, "user": row.user ?? "", "decision": row.decision, "detail": row.detail]
        }
    }

    func entriesPage(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let zone = try await siteZone()
        let page = max(1, Int(form["page"] ?? "") ?? 1)
        var data: [String: Any] = [
            "door": form.text("door") ?? "", "user": form.text("user") ?? "", "from": form.text("from") ?? "", "until": form.text("until") ?? "",
            "decisions": EntryFilter.decisions.map { ["name": $0, "selected": form.text("decision") == $0] },
            "csv": "/console/entries.csv?" + ConsoleHandler.query(form), "query": ConsoleHandler.query(form), "live": page == 1,
        ]
        switch try await entryFilter(form, zone: zone, visit: visit) {
        case .failure(let error):
            data["rows"] = [[String: String]]()
            return ConsoleResponse.page(
                "entries", title: "Who entered", page: "entries", visit: visit, data: data, error: error.description, status: .badRequest)
        case .success(let filter):
            // One row more than a page says whether there is an older page.
            let rows = try await entryRows(filter, offset: (page - 1) * ConsoleHandler.entriesPerPage, limit: ConsoleHandler.entriesPerPage + 1, zone: zone)
            data["rows"] = Array(rows.prefix(ConsoleHandler.entriesPerPage))
            if page > 1 { data["previous"] = "/console/entries?" + ConsoleHandler.query(form, page: page - 1) }
            if rows.count > ConsoleHandler.entriesPerPage { data["next"] = "/console/entries?" + ConsoleHandler.query(form, page: page + 1) }
            return ConsoleResponse.page("entries", title: "Who entered", page: "entries", visit: visit, data: data)
        }
    }

    func entriesJSON(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let zone = try await siteZone()
        switch try await entryFilter(form, zone: zone, visit: visit) {
        case .failure(let error): return ConsoleResponse.json(["error": error.description], status: .badRequest)
        case .success(let filter):
            return ConsoleResponse.json(["rows": try await entryRows(filter, offset: 0, limit: ConsoleHandler.entriesPerPage, zone: zone)])
        }
    }

    func entriesCSV(_ request: Request, _ context: AdminRequestContext) async throws -> Response {
        let (visit, form) = (context.visit, context.form)
        let zone = try await siteZone()
        switch try await entryFilter(form, zone: zone, visit: visit) {
        case .failure(let error):
            return ConsoleResponse.message(error.description, title: "Who entered", status: .badRequest, visit: visit, link: "/console/entries")
        case .success(let filter):
            let rows = try await change(
                visit, .entriesExport,
                reporting: {
                    let rows = try await services.console.entries(filter, offset: 0, limit: ConsoleHandler.csvRows)
                    return (rows, [("rows", String(rows.count))])
                })
            var csv = "time,door,user,decision,detail\r\n"
            for row in rows {
                csv +=
                    [ConsoleTime.stamp(row.time), row.door, row.user ?? "", row.decision, row.detail].map(CSVField.escape).joined(separator: ",") + "\r\n"
            }
            return ConsoleResponse.text(
                csv, type: "text/csv; charset=utf-8", extra: [(.contentDisposition, "attachment; filename=\"kioskpad-who-entered.csv\"")])
        }
    }
}

/// One CSV field (RFC 4180), safe to open in a spreadsheet: quoted when it holds a comma,
/// quote or line break, and a leading `=`, `+`, `-` or `@` is prefixed with `'` so it is
/// not run as a formula.
enum CSVField {
    static func escape(_ value: String) -> String {
        var text = value
        if let first = text.first, "=+-@\t\r".contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
