import Foundation
import HTTPTypes
import Hummingbird
import SiteCore

/// The management API's answers: JSON with the console's security headers; an error is
/// `{"error": "what is wrong and what would be valid"}` (docs/api.md).
enum APIResponse {
    static func json(_ object: Any, status: HTTPResponse.Status = .ok) -> Response {
        var response = ConsoleResponse.json(object, status: status)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// `object` with a change's `notes` (``ChangeNote``), when it has any.
    static func noting(_ notes: [ChangeNote], _ object: [String: Any]) -> [String: Any] {
        var object = object
        if !notes.isEmpty { object["notes"] = notes.map(\.description) }
        return object
    }

    static func error(_ status: HTTPResponse.Status, _ message: String, bearer: Bool = false, extra: [String: String] = [:]) -> Response {
        var object: [String: Any] = ["error": message]
        for (key, value) in extra { object[key] = value }
        var response = json(object, status: status)
        if bearer { response.headers[.wwwAuthenticate] = "Bearer realm=\"kioskpad\"" }
        return response
    }
}
