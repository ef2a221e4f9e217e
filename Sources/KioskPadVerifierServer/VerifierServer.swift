import HTTPTypes
import Hummingbird
import KeypadVerifier
import Logging
import NIOCore

/// The reference verifier over HTTP (Hummingbird): `POST /verify` per CONTRACTS sections
/// 2-3, decided by a ``ReferenceVerifier``, and `GET /healthz`. Bodies over the cap and
/// bodies that are not the verification JSON get 400; nothing a client sends crashes it.
public enum VerifierServer {
    public static func application(
        verifier: ReferenceVerifier, host: String, port: Int, logger: Logger,
        onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        let router = Router()
        let maxBody = verifier.settings.maxBodyBytes
        router.post("/verify") { request, _ -> Response in
            let body: [UInt8]
            do {
                var buffer = try await request.body.collect(upTo: maxBody)
                body = buffer.readBytes(length: buffer.readableBytes) ?? []
            } catch {
                return json(400, "{\"error\":\"body missing or larger than \(maxBody) bytes\"}")
            }
            let reply = await verifier.handle(ReferenceVerifier.Incoming(
                contentType: request.headers[.contentType],
                webhookID: request.headers[HTTPField.Name("webhook-id")!],
                webhookTimestamp: request.headers[HTTPField.Name("webhook-timestamp")!],
                webhookSignature: request.headers[HTTPField.Name("webhook-signature")!],
                body: body))
            return Response(
                status: HTTPResponse.Status(code: reply.status),
                headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: reply.body)))
        }
        router.get("/healthz") { _, _ -> Response in
            json(200, "{\"status\":\"ok\"}")
        }
        return Application(
            router: router,
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "kioskpad-verifier"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    static func json(_ status: Int, _ text: String) -> Response {
        Response(
            status: HTTPResponse.Status(code: status), headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}
