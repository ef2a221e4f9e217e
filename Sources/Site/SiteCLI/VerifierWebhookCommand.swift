import ArgumentParser
import Foundation
import KioskPadAccess
import KioskPadCommandLine
import KioskPadCore
import KioskPadStorage
import SiteAssembly
import SiteCore

/// `kioskpad verifier webhook`: where the site sends its events (docs/api.md, "Webhooks").
struct VerifierWebhookCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "webhook", abstract: "Add, list and remove webhook subscriptions; list deliveries and send a failed one again.",
        subcommands: [Add.self, List.self, Remove.self, Enable.self, Deliveries.self, Resend.self])

    /// `webhook add NAME URL [--events ...]`: the secret printed once. Where a URL may go is the
    /// site's target policy (`server.webhooks` of the config file).
    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Subscribe URL to events; prints the signing secret (whsec_...) once.",
            discussion: "Types: \(WebhookEventType.allCases.map(\.rawValue).joined(separator: ", ")), or * for all.")
        @Argument(help: "Webhook name: 1-64 of letters, digits, '.', '_' or '-'.") var name: String
        @Argument(help: "The receiver: https:// on a public address; inside the site's network or plain http:// only as server.webhooks allows.")
        var url: String
        @Option(help: "Comma-separated event types, or * for every type.") var events: String = "*"
        @Flag(help: .hidden) var allowHTTP = false
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let types: Set<WebhookEventType>
            do { types = try WebhookEventType.parse(events) } catch { throw UsageError(description: "\(error)") }
            if allowHTTP {
                throw UsageError(description: "--allow-http is gone: list the host under server.webhooks.allow_http in the site's config file")
            }
            let settings = try target.settings()
            let targets = VerifierAssembly.webhookTargets(settings)
            if let problem = targets.policy.formProblem(url) { throw UsageError(description: "URL: " + problem) }
            let secret = try await target.withStore(settings) { opened in
                try await VerifierUserCommand.applying(opened) {
                    try await VerifierWebhookCommand.administration(opened, targets: targets) { try await $0.add(name: name, url: url, events: types) }
                }
            }
            writeLine(secret.text)
            FileHandle.standardError.write(Data("webhook '\(name)' added; its secret is shown only now\n".utf8))
        }
    }

    /// `webhook list`: name, URL, types, queue; never a secret.
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the webhooks: name, URL, event types, deliveries pending and failed, and messages dropped by a full queue.")
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            let hooks = try await target.withStore { opened in try await VerifierUserCommand.applying(opened) { try await opened.webhooks.webhooks() } }
            for (hook, pending, failed, dropped) in hooks {
                writeLine(
                    "\(hook.name)\t\(WebhookTargetPolicy.shown(hook.url))\t\(WebhookEventType.text(hook.events))\tpending=\(pending)\tfailed=\(failed)"
                        + (dropped > 0 ? "\tdropped=\(dropped) (queue full: server.webhooks.max_pending)" : "")
                        + (hook.disabled.map { "\tdisabled since \(UTCTimestamp.rfc3339($0)) (webhook enable \(hook.name))" } ?? ""))
            }
        }
    }

    /// `webhook remove NAME`: the subscription and its queue.
    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a webhook and every delivery still queued for it.")
        @Argument(help: "Webhook name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await VerifierWebhookCommand.administration(opened) { try await $0.remove(name: name) } }
            }
            writeLine("webhook '\(name)' removed")
        }
    }

    /// `webhook enable NAME`: sends to a subscription the site disabled again.
    struct Enable: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send to a webhook again after the site disabled it (its receiver failed every try for server.webhooks.disable_after_hours).")
        @Argument(help: "Webhook name.") var name: String
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await VerifierWebhookCommand.administration(opened) { try await $0.enable(name: name) } }
            }
            writeLine("webhook '\(name)' enabled; its queue is sent from where it stopped")
        }
    }

    /// `webhook deliveries [NAME] [--failed]`: the newest deliveries.
    struct Deliveries: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the newest deliveries: id, webhook, type, state, tries, last error.")
        @Argument(help: "Only this webhook's.") var name: String?
        @Flag(help: "Only those given up on (send one again with `webhook resend ID`).") var failed = false
        @Option(help: "How many, newest first (1-1000).") var limit = 50
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            guard (1...1_000).contains(limit) else { throw UsageError(description: "--limit must be from 1 to 1000") }
            let list = try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) {
                    try await opened.webhooks.deliveries(subscription: name, state: failed ? .failed : nil, limit: limit)
                }
            }
            for delivery in list {
                writeLine(
                    "\(delivery.id)\t\(delivery.subscription)\t\(delivery.type.rawValue)\t\(delivery.messageID)\t\(delivery.state.rawValue)\ttries=\(delivery.attempts)\t\(UTCTimestamp.rfc3339(delivery.created))\t\(delivery.lastError ?? "-")"
                )
            }
        }
    }

    /// `webhook resend ID`: a failed delivery back in its queue.
    struct Resend: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Send a failed delivery again (same webhook-id), with a new 24-hour window.")
        @Argument(help: "The delivery's id (`webhook deliveries --failed`).") var id: Int64
        @OptionGroup var target: VerifierDatabaseTarget

        func run() async throws {
            try await target.withStore { opened in
                try await VerifierUserCommand.applying(opened) { try await VerifierWebhookCommand.administration(opened) { try await $0.resend(id: id) } }
            }
            writeLine("delivery \(id) queued again")
        }
    }

    /// Runs `body` with the command line's webhook administration; a refusal becomes the
    /// command's error message.
    static func administration<R: Sendable>(
        _ opened: OpenedVerifierStore, targets: WebhookTargets = WebhookTargets(), _ body: (WebhookAdministration) async throws -> R
    ) async throws -> R {
        do {
            return try await body(
                WebhookAdministration(store: opened.webhooks, changes: AdministratorChanges(store: opened.store, by: .commandLine()), targets: targets))
        } catch let problem as WebhookProblem {
            throw UserEditError(description: problem.description)
        }
    }
}
