import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import KioskPadCore
import NIOCore
import SiteCore

/// `Idempotency-Key` on a changing request (`POST`, `PUT`, `PATCH`, `DELETE`): the first request
/// with a key is applied and its answer kept in the site's database for a day, per token; a
/// retry with the same key and the same request gets that answer again
/// (`Idempotent-Replayed: true`) and changes nothing. The same key with another request is
/// refused (422). The key's claim, the change and the kept answer commit in one transaction, so
/// a retry while the first is answered waits for it and gets its answer, and a crash leaves no
/// claim behind. An answer 500 or above, or a refusal of the token (401, 403), is not kept
/// and its change rolled back, so a retry runs again; a token that can only read keeps nothing. A kept answer holds no secret:
/// a one-time or pass `code`, a webhook `secret` and a webhook's whole `url` are taken out of
/// it, and a replay names them in `"shown_once"` (the object itself is there).
struct APIIdempotency: RouterMiddleware {
    typealias Context = APIRequestContext
    static let header = HTTPField.Name("Idempotency-Key")!
    static let replayed = HTTPField.Name("Idempotent-Replayed")!
    /// How long a key's answer is kept.
    static let keptFor: TimeInterval = 86_400

    let tokens: any APITokenStore
    let now: @Sendable () -> Date

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let key = request.headers[Self.header], [.post, .put, .patch, .delete].contains(request.method),
            context.token.scopes.contains(where: { $0 != .read })
        else {
            return try await next(request, context)
        }
        guard (1...255).contains(key.utf8.count), key.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return APIResponse.error(.badRequest, "Idempotency-Key must be 1-255 printable ASCII characters without spaces (a UUID, say)")
        }
        var buffered = request
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: APIBody.maxBytes)
        } catch let error as any HTTPResponseError where error.status == .contentTooLarge {
            return APIBody.tooLarge(limit: APIBody.maxBytes).response
        }
        buffered.body = RequestBody(buffer: body)
        var digest = SHA256()
        digest.update(data: Array("\(request.method.rawValue) \(request.uri.description)\n".utf8))
        digest.update(data: Array(body.readableBytesView))
        let fingerprint = LowercaseHex.string(digest.finalize())
        let now = now()
        let request = buffered
        let token = context.token.name
        let tokens = tokens
        // The claim, the change the route makes and the kept answer are one transaction (every
        // store on the site's database joins it): a crash or a failure keeps none of them, so a
        // retry runs again; an answer that is not kept rolls the transaction back.
        do {
            return try await withoutActuallyEscaping(next) { next in
                let route = RouteOnce(next: next)
                return try await tokens.committing { () async throws -> Response in
                    let claim = try await tokens.claimIdempotencyKey(
                        token: token, key: key, fingerprint: fingerprint, now: now, since: now.addingTimeInterval(-Self.keptFor))
                    if let early = Self.answer(to: claim, key: key, fingerprint: fingerprint) { return early }
                    let response = try await route.call(request, context)
                    guard response.status.code < 500, response.status != .unauthorized, response.status != .forbidden else {
                        throw NotKept(response: response)
                    }
                    let collector = BodyCollector()
                    try await response.body.write(collector)
                    let text = String(buffer: collector.buffer)
                    try await tokens.finishIdempotencyKey(token: token, key: key, status: Int(response.status.code), body: Self.kept(text))
                    var answered = response
                    answered.body = ResponseBody(byteBuffer: collector.buffer)
                    return answered
                }
            }
        } catch let notKept as NotKept {
            return notKept.response
        }
    }

    /// The answer a key already holds: a replay, a refusal for another request, or 409 while
    /// a request from before this transaction's claim (an earlier kioskpad) is answered.
    static func answer(to claim: IdempotencyClaim, key: String, fingerprint: String) -> Response? {
        switch claim {
        case .running(let first) where first != fingerprint, .answered(let first, _, _) where first != fingerprint:
            return APIResponse.error(
                .unprocessableContent, "Idempotency-Key \(key) was used with another request in the last 24 h; use a new key for a new request")
        case .running:
            var response = APIResponse.error(.conflict, "a request with Idempotency-Key \(key) is still being answered; retry in a moment")
            response.headers[.retryAfter] = "1"
            return response
        case .answered(_, let status, let kept):
            var response = APIResponse.json([:], status: HTTPResponse.Status(code: status))
            response.body = ResponseBody(byteBuffer: ByteBuffer(string: kept))
            response.headers[Self.replayed] = "true"
            return response
        case .new:
            return nil
        }
    }

    /// An answer that is not kept (a server error, a refused token): thrown to roll back the
    /// request's transaction, then given to the client.
    struct NotKept: Error {
        let response: Response
    }

    /// The rest of the route, called once inside the request's transaction while the
    /// middleware waits for it: nothing else can reach it meanwhile.
    struct RouteOnce: @unchecked Sendable {
        let next: (Request, Context) async throws -> Response

        func call(_ request: Request, _ context: Context) async throws -> Response {
            try await next(request, context)
        }
    }

    /// What is shown once and never kept: the codes and secrets a creation answers with.
    static let shownOnce = ["code", "secret"]

    /// `body` as it is kept: without ``shownOnce``'s fields, a webhook's `url` redacted, and
    /// `"shown_once"` naming what was taken out. A body that is not a JSON object is kept as is.
    static func kept(_ body: String) -> String {
        guard var object = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] else { return body }
        let taken = shownOnce.filter { object[$0] != nil }
        guard !taken.isEmpty else { return body }
        for field in taken { object.removeValue(forKey: field) }
        if object["secret"] == nil, taken.contains("secret"), let url = object["url"] as? String {
            object["url"] = WebhookTargetPolicy.shown(url)
        }
        object["shown_once"] = taken
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }

    /// The answer's body, gathered to be kept.
    final class BodyCollector: ResponseBodyWriter {
        var buffer = ByteBuffer()
        func write(_ part: ByteBuffer) async throws {
            var part = part
            buffer.writeBuffer(&part)
        }
        func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
