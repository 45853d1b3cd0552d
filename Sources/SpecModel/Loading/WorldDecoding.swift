public import SimulatedWorld
public import SpecYAML

/// A world profile read from a `kind: world` file (`Specs/worlds/*.yaml`).
public struct WorldFile: Sendable {
    public let file: String
    public let profile: WorldProfile
    /// Where the profile's `name` is written.
    public let nameLocation: SourceLocation
}

extension SpecDecoder {
    static let worldKeys = ["name", "description", "signIn", "refresh", "revocation", "profile", "resources", "accountID", "tokens"]
    /// Cross-account resources, `/accounts/{account_id}/resources/{name}`, served under every profile.
    static let accountsPrefix = "/accounts/"

    mutating func worldFile(_ top: inout MappingReader, file: String) -> WorldFile? {
        let name = top.required("name").flatMap { identifier($0, "world name", pattern: .lowerKebab) }
        _ = top.optional("description").flatMap { string($0, "the world's 'description'") }
        let signIn = top.required("signIn").flatMap { worldSignIn($0) }
        let refresh = top.required("refresh").flatMap { worldRefresh($0) }
        // Each cross-check as soon as its endpoints are read, so the errors come in file order.
        if let signIn, let refresh {
            checkSharedPath(signIn, refresh)
        }
        let revocation = top.required("revocation").flatMap { worldRevocation($0) }
        if let revocation {
            for other in [signIn, refresh].compactMap({ $0 }) where other.path.value == revocation.path.value {
                error("the revocation path '\(revocation.path.value)' is also the \(other.what) path; revocation needs a path of its own",
                      at: revocation.path.location, notes: [.init("the \(other.what) path", at: other.path.location)])
            }
        }
        let profileNode = top.optional("profile")
        let profilePath = profileNode.flatMap { single($0, "profile", key: "path", isPrefix: false) }
        let endpoints = [signIn, refresh, revocation].compactMap { $0 }
        if let profilePath { checkProfilePath(profilePath, endpoints) }
        let resourcesNode = top.optional("resources")
        let prefix = resourcesNode.flatMap { single($0, "resources", key: "prefix", isPrefix: true) }
        if let prefix {
            // The default profile path, `/me`, starts with no prefix but `/`.
            checkResourcePrefix(prefix, endpoints.map { ($0.what, $0.path) } + (profilePath.map { [("profile", $0)] } ?? []))
        }
        let accountID = top.optional("accountID").map { worldAccountID($0) }
        let tokens = top.optional("tokens").map { worldTokens($0) }
        guard let name, let signIn, let refresh, let revocation,
              profileNode == nil || profilePath != nil, resourcesNode == nil || prefix != nil,
              accountID.map({ $0 != nil }) ?? true, tokens.map({ $0 != nil }) ?? true else { return nil }
        let profile = WorldProfile(
            name: name.value,
            signIn: .init(path: signIn.path.value, encoding: signIn.encoding, grantType: signIn.grantType?.value,
                          usernameField: signIn.fields["username"] ?? "username",
                          passwordField: signIn.fields["password"] ?? "password"),
            refresh: .init(path: refresh.path.value, encoding: refresh.encoding, grantType: refresh.grantType?.value,
                           refreshTokenField: refresh.fields["refreshToken"] ?? "refresh_token"),
            revocation: .init(path: revocation.path.value, encoding: revocation.encoding,
                              tokenField: revocation.fields["token"] ?? "token"),
            profilePath: profilePath?.value ?? "/me",
            resourcePrefix: prefix?.value ?? "/resources/",
            accountID: accountID.flatMap { $0 } ?? .tokenResponse(field: "account_id"),
            tokens: tokens.flatMap { $0 } ?? WorldProfile.TokenPolicy())
        return WorldFile(file: file, profile: profile, nameLocation: name.location)
    }

    /// One endpoint of a world file, as read.
    struct WorldEndpoint {
        let what: String
        let path: Located<String>
        let encoding: WorldProfile.Encoding
        let grantType: Located<String>?
        let fields: [String: String]
        let node: YAMLNode
    }

    private mutating func worldSignIn(_ node: YAMLNode) -> WorldEndpoint? {
        worldEndpoint(node, what: "sign-in", key: "signIn", fields: [("username", "username"), ("password", "password")],
                      grantType: true)
    }

    private mutating func worldRefresh(_ node: YAMLNode) -> WorldEndpoint? {
        worldEndpoint(node, what: "refresh", key: "refresh", fields: [("refreshToken", "refresh_token")], grantType: true)
    }

    private mutating func worldRevocation(_ node: YAMLNode) -> WorldEndpoint? {
        worldEndpoint(node, what: "revocation", key: "revocation", fields: [("token", "token")], grantType: false)
    }

    /// `fields`: each field an endpoint's body has, with its wire name when the file does not give one.
    private mutating func worldEndpoint(_ node: YAMLNode, what: String, key: String, fields defaults: [(field: String, name: String)],
                                        grantType allowsGrantType: Bool) -> WorldEndpoint? {
        let allowedFields = defaults.map(\.field)
        let keys = ["path", "encoding", "fields"] + (allowsGrantType ? ["grantType"] : [])
        guard var map = mapping(node, "the world's '\(key)'", allowed: keys) else { return nil }
        let endpointPath = map.required("path").flatMap { self.path($0, "the \(what) 'path'") }
        let encoding = map.required("encoding").flatMap { choice($0, "the \(what) 'encoding'", as: WorldProfile.Encoding.self) }
        let grantType = map.optional("grantType").flatMap { fieldName($0, "the \(what) 'grantType'") }
        var fields: [String: String] = [:]
        var fieldsReadable = true
        if let fieldsNode = map.optional("fields") {
            if let fieldMap = mapping(fieldsNode, "the \(what) 'fields'", allowed: allowedFields) {
                var named: [(field: String, name: Located<String>)] = []
                for field in allowedFields {
                    guard let value = fieldMap.optional(field) else { continue }
                    if let name = fieldName(value, "the \(what) field '\(field)'") {
                        fields[field] = name.value
                        named.append((field, name))
                    } else {
                        fieldsReadable = false
                    }
                }
                let reserved = Self.reservedParameters(what, grantType: map.optional("grantType") != nil, encoding: encoding?.value)
                if !checkFieldNames(what, named: named, defaults: defaults, reserved: reserved) { fieldsReadable = false }
                finish(fieldMap)
                if fieldMap.entries.contains(where: { !allowedFields.contains($0.key) }) { fieldsReadable = false }
            } else {
                fieldsReadable = false
            }
        }
        finish(map)
        guard let endpointPath, let encoding, fieldsReadable, map.optional("grantType") == nil || grantType != nil else { return nil }
        return WorldEndpoint(what: what, path: endpointPath, encoding: encoding.value, grantType: grantType, fields: fields, node: node)
    }

    /// Sign-in and refresh at one path form an RFC 6749 token endpoint: each needs its own `grant_type`.
    private mutating func checkSharedPath(_ signIn: WorldEndpoint, _ refresh: WorldEndpoint) {
        guard signIn.path.value == refresh.path.value else { return }
        let shared = "sign-in and refresh share the path '\(refresh.path.value)'"
        switch (signIn.grantType, refresh.grantType) {
        case (nil, _):
            error("\(shared), so sign-in needs a 'grantType' (such as password) to tell them apart", at: signIn.node.location)
        case (_, nil):
            error("\(shared), so refresh needs a 'grantType' (such as refresh_token) to tell them apart", at: refresh.node.location)
        case (let first?, let second?) where first.value == second.value:
            error("\(shared) and the grantType '\(second.value)'; give each its own", at: second.location,
                  notes: [.init("the sign-in grantType", at: first.location)])
        default:
            break
        }
    }

    /// Whether the wire names of one endpoint's fields are all different, and none is a parameter the request
    /// carries or the world reads besides them (`reserved`); each clash is an error at the later name.
    /// `named`: the fields the file names; the others keep their default names.
    private mutating func checkFieldNames(_ what: String, named: [(field: String, name: Located<String>)],
                                          defaults: [(field: String, name: String)], reserved: [(name: String, use: String)]) -> Bool {
        var clean = true
        let unnamed = defaults.filter { field in !named.contains { $0.field == field.field } }
        let inFileOrder = named.sorted { $0.name.location < $1.name.location }
        for (index, (field, name)) in inFileOrder.enumerated() {
            if let use = reserved.first(where: { $0.name == name.value })?.use {
                error("the \(what) field '\(field)' is named '\(name.value)', which the \(what) request uses for \(use); choose another name",
                      at: name.location)
                clean = false
            } else if let other = unnamed.first(where: { $0.name == name.value }) {
                error("the \(what) fields '\(other.field)' (by default) and '\(field)' are both named '\(name.value)'; each needs a name of its own",
                      at: name.location)
                clean = false
            } else if let other = inFileOrder[..<index].first(where: { $0.name.value == name.value }) {
                error("the \(what) fields '\(other.field)' and '\(field)' are both named '\(name.value)'; each needs a name of its own",
                      at: name.location, notes: [.init("'\(other.field)' is named '\(name.value)' here", at: other.name.location)])
                clean = false
            }
        }
        return clean
    }

    /// The parameters an endpoint's request carries besides its fields, or that the world reads from it, and what
    /// each is for: a field of the same name would make the body ambiguous (docs/spec-format.md, section 13).
    static func reservedParameters(_ what: String, grantType: Bool, encoding: WorldProfile.Encoding?) -> [(name: String, use: String)] {
        let grant = ("grant_type", "the grant type (RFC 6749 §4.3, §6)")
        let client = ("client_id", "the client id (RFC 6749 §2.3)")
        let scope = ("scope", "the scope (RFC 6749 §3.3)")
        switch what {
        case "sign-in": return grantType ? [grant, client, scope] : []
        // Every refresh carries grant_type, json-v1's too.
        case "refresh": return [grant] + (grantType ? [client, scope] : [])
        default: return [("token_type_hint", "the token type hint (RFC 7009 §2.1)")] + (encoding == .form ? [client] : [])
        }
    }

    /// The world answers a path that names an auth endpoint as that endpoint, whatever the method: a profile at
    /// the same path would never be reached.
    private mutating func checkProfilePath(_ profile: Located<String>, _ endpoints: [WorldEndpoint]) {
        guard let other = endpoints.first(where: { $0.path.value == profile.value }) else { return }
        error("the profile path '\(profile.value)' is also the \(other.what) path; the profile needs a path of its own",
              at: profile.location, notes: [.init("the \(other.what) path", at: other.path.location)])
    }

    /// Every path under the resources prefix is a resource: no other endpoint's path may start with it, and it may
    /// not overlap the cross-account resources under `/accounts/`. `paths`: the other endpoints' paths.
    private mutating func checkResourcePrefix(_ prefix: Located<String>, _ paths: [(what: String, path: Located<String>)]) {
        if prefix.value == "/" {
            error("the resources prefix '/' covers every path, the other endpoints' too; give resources a folder of their own, such as '/resources/'",
                  at: prefix.location)
        } else if let covered = paths.first(where: { $0.path.value.hasPrefix(prefix.value) }) {
            error("the resources prefix '\(prefix.value)' covers the \(covered.what) path '\(covered.path.value)'; no other endpoint's path may start with it",
                  at: prefix.location, notes: [.init("the \(covered.what) path", at: covered.path.location)])
        } else if prefix.value.hasPrefix(Self.accountsPrefix) || Self.accountsPrefix.hasPrefix(prefix.value) {
            error("the resources prefix '\(prefix.value)' overlaps '/accounts/{account_id}/resources/{name}', which the world serves under every profile",
                  at: prefix.location)
        }
    }

    /// A mapping with exactly one key, a path (`profile: { path }`, `resources: { prefix }`). Nil when unreadable.
    private mutating func single(_ node: YAMLNode, _ name: String, key: String, isPrefix: Bool) -> Located<String>? {
        guard var map = mapping(node, "the world's '\(name)'", allowed: [key]) else { return nil }
        let value = map.required(key).flatMap { path($0, "the \(name) '\(key)'", isPrefix: isPrefix) }
        finish(map)
        return value
    }

    private mutating func worldAccountID(_ node: YAMLNode) -> WorldProfile.AccountIDSource? {
        guard var map = mapping(node, "the world's 'accountID'", allowed: ["from", "field"]) else { return nil }
        let from = map.required("from").flatMap { choice($0, "the accountID 'from'", as: AccountIDOrigin.self) }
        let field = map.required("field").flatMap { fieldName($0, "the accountID 'field'") }
        finish(map)
        guard let from, let field else { return nil }
        switch from.value {
        case .tokenResponse: return .tokenResponse(field: field.value)
        case .profile: return .profile(field: field.value)
        }
    }

    private mutating func worldTokens(_ node: YAMLNode) -> WorldProfile.TokenPolicy? {
        guard let map = mapping(node, "the world's 'tokens'", allowed: ["accessTokenLifetime", "rotation", "reuseInterval"]) else {
            return nil
        }
        var policy = WorldProfile.TokenPolicy()
        var readable = true
        if let lifetime = map.optional("accessTokenLifetime") {
            switch number(lifetime, "accessTokenLifetime", in: NumericLimits.seconds) {
            case let seconds? where seconds > 0:
                policy.accessTokenLifetime = seconds
            case .some:
                error("accessTokenLifetime must be more than 0", at: lifetime.location)
                readable = false
            case nil:
                readable = false
            }
        }
        if let reuse = map.optional("reuseInterval") {
            if let seconds = number(reuse, "reuseInterval", in: NumericLimits.seconds) { policy.reuseInterval = seconds } else { readable = false }
        }
        if let rotation = map.optional("rotation") {
            if case .bool(let flag)? = rotation.scalar?.resolved {
                policy.rotation = flag
            } else {
                error("expected rotation to be true or false, found \(rotation.kindDescription)", at: rotation.location)
                readable = false
            }
        }
        finish(map)
        return readable ? policy : nil
    }

    /// An HTTP path: starts with `/`, no query string, no white space; a prefix also ends with `/`.
    private mutating func path(_ node: YAMLNode, _ what: String, isPrefix: Bool = false) -> Located<String>? {
        guard let text = string(node, what) else { return nil }
        let value = text.value
        guard value.hasPrefix("/"), !value.contains("?"), !value.contains("#"), !value.contains(where: \.isWhitespace) else {
            error("\(what) '\(value)' must be a path starting with '/', without a query string or white space", at: node.location)
            return nil
        }
        if let control = value.unicodeScalars.first(where: { $0.properties.generalCategory == .control }) {
            let hex = String(control.value, radix: 16, uppercase: true)
            error("\(what) contains the control character U+\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex); a path is printable text",
                  at: node.location)
            return nil
        }
        if isPrefix, !value.hasSuffix("/") {
            error("\(what) '\(value)' must end with '/' (a resource's name follows it)", at: node.location)
            return nil
        }
        return text
    }

    /// A body field or `grant_type` value: letters, digits, `_`, `-` and `.`.
    private mutating func fieldName(_ node: YAMLNode, _ what: String) -> Located<String>? {
        guard let text = string(node, what) else { return nil }
        let allowed = text.value.unicodeScalars.allSatisfy {
            $0.isASCII && (("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "_-.".unicodeScalars.contains($0))
        }
        guard allowed else {
            error("\(what) '\(text.value)' must be letters, digits, '_', '-' or '.'", at: node.location)
            return nil
        }
        return text
    }
}

/// Where a world's account id comes from, as a world file spells it.
enum AccountIDOrigin: String, CaseIterable, Sendable {
    case tokenResponse
    case profile
}
