import Foundation
import Yams

/// `verifier:` - required, so that no door ever falls back to a demo PIN by omission.
enum VerifierSection {
    enum Kind: String, CaseIterable {
        case local
        case demo
    }

    static func read(_ top: MappingReader, baseDirectory: String) -> VerifierConfiguration {
        guard top.has("verifier") else {
            top.log.report("verifier", "is required: kind: local (with users_file) or kind: demo (simulation only)", at: nil)
            _ = top.value("verifier")
            return .demo
        }
        let reader = top.child("verifier")
        defer { reader.finish() }
        let kind: Kind = reader.choice("kind", default: .local)
        switch kind {
        case .demo:
            return .demo
        case .local:
            guard reader.has("users_file") else {
                reader.log.report(reader.keyPath("users_file"), "is required with kind: local (a file of lines made by `kioskpad pin hash`)", at: reader.node)
                return .demo
            }
            let path = reader.string("users_file", default: "")
            return .local(usersFile: path.hasPrefix("/") ? path : (baseDirectory as NSString).appendingPathComponent(path))
        }
    }
}
