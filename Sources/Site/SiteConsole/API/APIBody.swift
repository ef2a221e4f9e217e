import Hummingbird
import KioskPadAccess

/// A request body as the management API reads it: one JSON object, read in one strict pass
/// (``StrictJSON``: no repeated keys, nothing outside RFC 8259), with only `allowed` fields, and
/// `null` only for those `nullable`; else the 400 that says what is wrong.
enum APIBody {
    /// The most a request body may hold, in bytes, on every route.
    static let maxBytes = 8_192

    static func object(
        _ request: Request, allowed: Set<String>, nullable: Set<String> = [], limit: Int = APIBody.maxBytes
    ) async throws -> Result<StrictJSON.Fields, APIRefusal> {
        let bytes: [UInt8]
        switch try await read(request, limit: limit) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let read): bytes = read
        }
        return fields(bytes, allowed: allowed, nullable: nullable)
    }

    /// As ``object(_:allowed:nullable:limit:)`` for a body that may be left out: nil when empty.
    static func optionalObject(_ request: Request, allowed: Set<String>, limit: Int = APIBody.maxBytes) async throws -> Result<StrictJSON.Fields?, APIRefusal> {
        let bytes: [UInt8]
        switch try await read(request, limit: limit) {
        case .failure(let refusal): return .failure(refusal)
        case .success(let read): bytes = read
        }
        guard !bytes.isEmpty else { return .success(nil) }
        return fields(bytes, allowed: allowed, nullable: []).map { $0 }
    }

    /// The body's bytes, or the 413 that gives the limit: a body over it is not read further.
    static func read(_ request: Request, limit: Int) async throws -> Result<[UInt8], APIRefusal> {
        do {
            var buffer = try await request.body.collect(upTo: limit)
            return .success(buffer.readBytes(length: buffer.readableBytes) ?? [])
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return .failure(tooLarge(limit: limit))
        }
    }

    /// The answer to a body over `limit` bytes.
    static func tooLarge(limit: Int) -> APIRefusal {
        APIRefusal(.contentTooLarge, "the body is larger than \(limit) bytes; nothing was changed")
    }

    private static func fields(_ bytes: [UInt8], allowed: Set<String>, nullable: Set<String>) -> Result<StrictJSON.Fields, APIRefusal> {
        switch StrictJSON.parse(bytes) {
        case .failure(let problem): return .failure(APIRefusal(.badRequest, "the body is not JSON: \(problem)"))
        case .success(let value):
            guard let fields = StrictJSON.Fields(value) else { return .failure(APIRefusal(.badRequest, "the body must be a JSON object")) }
            if let unknown = fields.unknownKey(allowed: allowed) {
                return .failure(APIRefusal(.badRequest, "unknown field \(unknown) (the body has \(allowed.sorted().joined(separator: ", ")))"))
            }
            if let null = fields.object.keys.sorted().first(where: { fields.object[$0] == .null && !nullable.contains($0) }) {
                return .failure(APIRefusal(.badRequest, "\(null) must not be null (leave it out instead)"))
            }
            return .success(fields)
        }
    }
}

/// A list route's `limit` query parameter: `fallback` when it is left out, else a whole number
/// from 1 to `max`; else the 400 that names it.
enum APIPageLimit {
    static func read(_ request: Request, fallback: Int, max: Int) -> Result<Int, APIRefusal> {
        guard let text = request.uri.queryParameters["limit"].map(String.init) else { return .success(fallback) }
        guard let number = Int(text), (1...max).contains(number) else {
            return .failure(APIRefusal(.badRequest, "limit must be a whole number from 1 to \(max)"))
        }
        return .success(number)
    }
}

/// An answer other than the one asked for: its status and what is wrong.
struct APIRefusal: Error {
    let status: HTTPResponse.Status
    let message: String

    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }

    var response: Response { APIResponse.error(status, message) }
}
