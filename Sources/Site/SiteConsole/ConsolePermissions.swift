import HTTPTypes
import Hummingbird
import SiteCore

/// Every console route behind the login names the permission it needs (``SitePermission``):
/// a route is added with one, and an administrator whose role lacks it gets 403 and a page
/// that says which permission and which roles have it, before the form is read for anything
/// else. The pages in the navigation are shown only to roles that may open them.
enum ConsolePermissions {
    /// The console's pages in the navigation's order: path, title and who may open it.
    static let pages: [(path: String, title: String, anyOf: Set<SitePermission>)] = [
        ("doors", "Doors", [.viewDoors]),
        ("users", "Users", [.viewUsers]),
        ("codes", "Codes", [.viewCodes]),
        ("visitors", "Visitors", [.viewVisitors, .hostVisitorPasses]),
        ("entries", "Who entered", [.viewEntries]),
        ("access", "Access", [.viewSite]),
        ("site", "Site", [.viewSite]),
        ("api", "API", [.viewIntegrations]),
    ]

    /// The first page a role with `permissions` may open (where a login lands); every role
    /// may open one (the census test holds it).
    static func home(for permissions: Set<SitePermission>) -> String {
        pages.first { !$0.anyOf.isDisjoint(with: permissions) }.map { "/console/" + $0.path } ?? "/console/login"
    }

    /// The layout's flags for the navigation: `mayDoors` and so on, for the pages `role` may open.
    static func navigation(_ role: SiteRole) -> [String: Any] {
        var flags: [String: Any] = [:]
        for page in pages where !page.anyOf.isDisjoint(with: role.permissions) {
            flags["may" + page.path.prefix(1).uppercased() + page.path.dropFirst()] = true
        }
        return flags
    }

    /// The refusal of a route the visit's role may not use: a page, or for live data (`.json`)
    /// the JSON error, each naming the permission and the roles that have it.
    static func refused(_ request: Request, _ visit: Visit, _ needed: Set<SitePermission>) -> Response {
        let refusal = NotPermitted(actor: visit.admin, role: visit.session.role, permission: needed.sorted()[0])
        guard !request.uri.path.hasSuffix(".json") else {
            return ConsoleResponse.json(["error": refusal.description, "permission": refusal.permission.rawValue], status: .forbidden)
        }
        return ConsoleResponse.message(
            refusal.description.prefix(1).uppercased() + refusal.description.dropFirst() + ".", title: "Not permitted", status: .forbidden, visit: visit,
            link: home(for: visit.session.role.permissions))
    }
}

extension Set where Element == SitePermission {
    /// What a route added with `needs: permission, or: other` lets in: either.
    init(_ permission: SitePermission, or other: SitePermission?) {
        self = [permission]
        if let other { insert(other) }
    }
}

extension RouterGroup where Context == AdminRequestContext {
    /// A GET route for an administrator with `permission` (or `other`).
    @discardableResult
    func get(
        _ path: RouterPath, needs permission: SitePermission, or other: SitePermission? = nil,
        use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) -> Self {
        get(path, use: ConsolePermissions.guarded(Set(permission, or: other), handler))
    }

    /// A POST route for an administrator with `permission` (or `other`).
    @discardableResult
    func post(
        _ path: RouterPath, needs permission: SitePermission, or other: SitePermission? = nil,
        use handler: @escaping @Sendable (Request, Context) async throws -> Response
    ) -> Self {
        post(path, use: ConsolePermissions.guarded(Set(permission, or: other), handler))
    }
}

extension ConsolePermissions {
    static func guarded(
        _ needed: Set<SitePermission>, _ handler: @escaping @Sendable (Request, AdminRequestContext) async throws -> Response
    ) -> @Sendable (Request, AdminRequestContext) async throws -> Response {
        { request, context in
            guard !needed.isDisjoint(with: context.visit.session.role.permissions) else { return refused(request, context.visit, needed) }
            return try await handler(request, context)
        }
    }
}
