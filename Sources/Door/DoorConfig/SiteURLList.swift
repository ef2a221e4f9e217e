import KioskPadConfig
import KioskPadEndpoints
import Yams

/// `url:` or `urls:` in a section that posts to the site (`verifier`, `events`): one address,
/// or the same site's several addresses tried in order (two `verifier serve` instances without
/// a load balancer). Each is checked by the verifier URL rule; errors name `KEY.url` or
/// `KEY.urls[N]`.
enum SiteURLList {
    /// At most this many addresses: each unanswered one costs an attempt part of its deadline.
    static let maxAddresses = 4

    /// The addresses, first preferred; `fallback` alone when neither key is there (reported
    /// with `required`, e.g. "is required with kind: http (...)").
    static func read(_ reader: MappingReader, allowInsecureHTTP: Bool, fallback: String, required: String) -> [String] {
        reader.declare("urls")
        let log = reader.log
        if reader.has("url"), reader.has("urls") {
            log.report(reader.keyPath("urls"), "and url are alternatives: give one address as url or several as urls", at: reader.value("urls"))
        }
        guard reader.has("urls") else {
            if !reader.has("url") { log.report(reader.keyPath("url"), required, at: reader.node) }
            let url = reader.string("url", default: fallback)
            if reader.has("url"), let problem = VerifierURL.problem(url, allowInsecureHTTP: allowInsecureHTTP) {
                log.report(reader.keyPath("url"), section(problem, reader), at: reader.value("url"))
            }
            return [url]
        }
        guard
            let entries = texts(
                reader.value("urls"), at: reader.keyPath("urls"), log: log,
                notAList:
                    "must be a list of 1 to \(maxAddresses) addresses of the same site, tried in order, e.g. [https://site-a.example/verify, https://site-b.example/verify]",
                notText: "must be text (a URL)")
        else { return [fallback] }
        var urls: [String] = []
        for (text, path, item) in entries {
            if let problem = VerifierURL.problem(text, allowInsecureHTTP: allowInsecureHTTP) {
                log.report(path, section(problem, reader), at: item)
            } else if urls.contains(text) {
                log.report(path, "\(ConfigText.quoted(text)) is listed twice", at: item)
            }
            urls.append(text)
        }
        return urls.isEmpty ? [fallback] : urls
    }

    /// The text entries of `node`, a list of 1 to ``maxAddresses`` at `path` (`urls`, `site`),
    /// each with its own path (`urls[1]`) for the caller's checks; an entry that is not text
    /// is reported with `notText` and left out. Nil when `node` is no such list (reported
    /// with `notAList`).
    static func texts(_ node: Node?, at path: String, log: ProblemLog, notAList: String, notText: String) -> [(text: String, path: String, node: Node)]? {
        guard case .sequence(let sequence)? = node, (1...maxAddresses).contains(sequence.count) else {
            log.report(path, notAList, at: node)
            return nil
        }
        return sequence.enumerated().compactMap { index, item in
            guard case .scalar = item, let text = item.string else {
                log.report(path + "[\(index)]", notText, at: item)
                return nil
            }
            return (text, path + "[\(index)]", item)
        }
    }

    /// The URL rule's advice names `verifier.allow_insecure_http`; in another section, its own key.
    private static func section(_ problem: String, _ reader: MappingReader) -> String {
        problem.replacingOccurrences(of: "verifier.allow_insecure_http", with: reader.keyPath("allow_insecure_http"))
    }
}
