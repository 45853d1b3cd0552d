import ConformanceProtocol
import Foundation
import SimulatedWorld

/// No token value, or any fragment of one, raw or encoded (base64, base64url, hex), in logs, UI events,
/// transitions, results, preferences, URLs or stderr; and no sign-in password, raw or encoded, in any of them.
struct NoTokenInClientOutput: Oracle {
    let id = "no-token-in-client-output"
    let invariants: [String] = []
    let requirements = ["LOG-NO-TOKEN-VALUES", "STORAGE-NO-PLAINTEXT-TOKENS", "STORAGE-SECURE-TOKENS"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let vault = context.world.vault
        for text in context.index.emittedTexts {
            let leaked = vault.leaked(in: text.value)
            guard !leaked.isEmpty else { continue }
            findings.append(context.finding(
                ["LOG-NO-TOKEN-VALUES"], id,
                "the client emitted a value or fragment of \(leaked.map(\.handle).joined(separator: ", ")) in its logs or events",
                [text.event]))
        }
        for write in context.index.storageWrites where !write.secure {
            let leaked = vault.leaked(in: write.key + " " + write.value)
            guard !leaked.isEmpty else { continue }
            // A token kept in preferences is in plaintext and outside secure storage: both rules are broken.
            findings.append(context.finding(
                ["STORAGE-NO-PLAINTEXT-TOKENS", "STORAGE-SECURE-TOKENS"], id,
                "preferences key '\(write.key)' received \(leaked.map(\.handle).joined(separator: ", ")): tokens belong in secure storage only",
                [write.event]))
        }
        let leakedInStderr = vault.leaked(in: context.capturedLog)
        if !leakedInStderr.isEmpty {
            findings.append(context.finding(
                ["LOG-NO-TOKEN-VALUES"], id,
                "the adapter's stderr log holds a value or fragment of \(leakedInStderr.map(\.handle).joined(separator: ", "))",
                [context.trace.events.last?.number ?? 0]))
        }
        // A URL is a deep link's and a server log's: no token belongs in a path or query.
        for exchange in context.index.exchanges {
            let leaked = vault.leaked(in: exchange.request.path)
            guard !leaked.isEmpty else { continue }
            findings.append(context.finding(
                ["STORAGE-NO-PLAINTEXT-TOKENS"], id,
                "the URL of \(exchange.request.method) \(context.world.vault.redact(exchange.request.path)) carries \(leaked.map(\.handle).joined(separator: ", "))",
                [exchange.event]))
        }
        return findings + passwordLeaks(context)
    }

    /// The passwords typed into sign-in forms (8 characters or more, as the world's rule wants), raw or
    /// encoded, in the same places: logs, events, results, preferences, URLs and stderr.
    private func passwordLeaks(_ context: OracleContext) -> [Finding] {
        let passwords = Set(context.index.commands.compactMap(\.value.password).filter { $0.count >= 8 })
        guard !passwords.isEmpty else { return [] }
        // Searched as UTF-8 bytes: Foundation's `String.contains` was nearly half of an explored run's time.
        let forms = passwords.flatMap(Self.passwordForms).map { Array($0.utf8) }
        let holds = { (text: String) in forms.contains { Self.bytes(of: text, contain: $0) } }
        var findings: [Finding] = []
        if let text = context.index.emittedTexts.first(where: { holds($0.value) }) {
            findings.append(context.finding(
                ["LOG-NO-TOKEN-VALUES"], id, "the client emitted a sign-in password, raw or encoded, in its logs or events", [text.event]))
        }
        if let write = context.index.storageWrites.first(where: { !$0.secure && holds($0.key + " " + $0.value) }) {
            findings.append(context.finding(
                ["STORAGE-NO-PLAINTEXT-TOKENS"], id, "preferences key '\(write.key)' received a sign-in password, raw or encoded", [write.event]))
        }
        if let exchange = context.index.exchanges.first(where: { holds($0.request.path) }) {
            findings.append(context.finding(
                ["STORAGE-NO-PLAINTEXT-TOKENS"], id, "a sign-in password travelled in the URL of \(exchange.request.method) request #\(exchange.event)", [exchange.event]))
        }
        if holds(context.capturedLog) {
            findings.append(context.finding(
                ["LOG-NO-TOKEN-VALUES"], id, "the adapter's stderr log holds a sign-in password, raw or encoded",
                [context.trace.events.last?.number ?? 0]))
        }
        return findings
    }

    /// Whether `needle` occurs in the UTF-8 bytes of `text`.
    static func bytes(of text: String, contain needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        var text = text
        return text.withUTF8 { haystack in
            guard haystack.count >= needle.count else { return false }
            var start = 0
            let last = haystack.count - needle.count
            while start <= last {
                if haystack[start] == first {
                    var matched = 1
                    while matched < needle.count, haystack[start + matched] == needle[matched] { matched += 1 }
                    if matched == needle.count { return true }
                }
                start += 1
            }
            return false
        }
    }

    /// A password as typed and as a client might encode it: percent- and form-encoded, base64, base64url, hex.
    static func passwordForms(_ password: String) -> [String] {
        var forms = [password] + TokenVault.encodedForms(of: password).filter { $0.count >= TokenVault.fragmentLength }
        if let percent = password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) {
            forms.append(percent)
            forms.append(percent.replacingOccurrences(of: "%20", with: "+"))
        }
        return forms
    }
}

/// New tokens from a login or refresh are written to secure storage, both as one unit, before the new access
/// token is first sent. Using a pair before it is stored breaks 001's order ("with the new tokens stored before
/// anyone uses them"), whoever issued it: charged to REFRESH-PERSIST-BEFORE-USE for a sign-in's pair too.
/// STORAGE-SECURE-TOKENS is about where tokens live (secure storage, not preferences or plain files), which the
/// cases' `tokensStored` checks and `no-token-in-client-output` sees (a token in preferences).
struct NewTokensPersistedBeforeUse: Oracle {
    let id = "new-tokens-persisted-before-use"
    let invariants: [String] = ["refreshing-pair-persisted-before-use", "authenticated-persisted-token"]
    let requirements = ["REFRESH-PERSIST-BEFORE-USE", "STORAGE-ATOMIC-PAIR"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let index = context.index
        for issuing in index.exchanges where issuing.isRefresh || issuing.isLogin {
            guard let access = issuing.issuedAccessToken, let refresh = issuing.issuedRefreshToken,
                  let delivered = issuing.replyEvent else { continue }
            let writes = index.storageWrites.filter { $0.secure && $0.instance == issuing.instance && $0.event > delivered }
            let firstUse = index.exchanges.first {
                $0.instance == issuing.instance && $0.event > delivered && $0.request.bearerToken == access
            }
            // The new access token must be in storage before its first use, and so must the new refresh token
            // whenever the client stores it at all; one that is never stored is the rotation oracle's to catch.
            let persistedAccess = writes.first { $0.value.contains(access) }
            let persistedRefresh = writes.first { $0.value.contains(refresh) }
            if let firstUse,
               persistedAccess.map({ $0.event > firstUse.event }) ?? true
                || persistedRefresh.map({ $0.event > firstUse.event }) == true {
                let handles = context.handles(in: access + " " + refresh)
                findings.append(context.finding(
                    ["REFRESH-PERSIST-BEFORE-USE"], id,
                    "the new access token of a \(issuing.isRefresh ? "refresh" : "sign-in") was sent before the new pair was in secure storage (\(handles))",
                    [delivered, firstUse.event] + Set([persistedAccess, persistedRefresh].compactMap { $0?.event }).sorted()))
            }
            let accessOnly = writes.first { $0.value.contains(access) && !$0.value.contains(refresh) }
            let refreshOnly = writes.first { $0.value.contains(refresh) && !$0.value.contains(access) }
            if let accessOnly, let refreshOnly {
                findings.append(context.finding(
                    ["STORAGE-ATOMIC-PAIR"], id,
                    "the token pair was written as two items ('\(accessOnly.key)', '\(refreshOnly.key)'), not as one unit",
                    [accessOnly.event, refreshOnly.event].sorted()))
            }
        }
        return findings
    }
}

/// A refresh token the client has replaced is never sent again: not after the client received its successor
/// in this process, nor after the successor reached secure storage.
struct RotatedRefreshTokenNeverSent: Oracle {
    let id = "rotated-refresh-token-never-sent"
    let invariants: [String] = ["refreshing-rotated-token-not-reused"]
    let requirements = ["ROTATION-OLD-TOKEN-NEVER-REUSED"]

    func check(_ context: OracleContext) -> [Finding] {
        var findings: [Finding] = []
        let index = context.index
        for rotation in index.exchanges where rotation.isRefresh {
            guard let old = rotation.presentedRefreshToken, let successor = rotation.issuedRefreshToken,
                  let delivered = rotation.replyEvent else { continue }
            let persisted = index.storageWrites.first { $0.secure && $0.event > delivered && $0.value.contains(successor) }
            for reuse in index.exchanges where reuse.isRefresh && reuse.presentedRefreshToken == old && reuse.event > delivered {
                let knewSuccessor = reuse.instance == rotation.instance || persisted.map { $0.event < reuse.event } == true
                guard knewSuccessor else { continue }
                findings.append(context.finding(
                    requirements, id,
                    "\(context.handles(in: old)) was sent again after it was rotated to \(context.handles(in: successor))",
                    [delivered, reuse.event]))
                break
            }
        }
        return findings
    }
}

/// With background refresh declared, secure-storage items holding tokens are readable after first unlock.
struct BackgroundTokensAfterFirstUnlock: Oracle {
    let id = "background-tokens-after-first-unlock"
    let invariants: [String] = []
    let requirements = ["STORAGE-BACKGROUND-ACCESSIBILITY"]

    func check(_ context: OracleContext) -> [Finding] {
        guard context.capabilities.contains("background-refresh") else { return [] }
        return context.index.storageWrites.compactMap { write in
            guard write.secure, write.accessibility != .afterFirstUnlock,
                  !context.world.vault.contained(in: write.value).isEmpty else { return nil }
            return context.finding(
                requirements, id,
                "secure-storage item '\(write.key)' holds tokens with accessibility '\(write.accessibility?.rawValue ?? "default")'; background refresh needs afterFirstUnlock",
                [write.event])
        }
    }
}
