public import JSONCore

/// The world profile in force, as the runner's `welcome` describes it (`world`): the endpoints' paths, the
/// body each takes, the field names, and where the account id comes from. An adapter may ignore it and speak
/// the paths it was written for; one that reads it can follow any profile (docs/adapter-protocol.md).
public struct WorldDescription: Sendable, Hashable {
    /// One endpoint: its path, its body encoding (`json` or `form`), its `grant_type` when it is an RFC 6749
    /// token endpoint, and the names of its fields (`username`, `password`, `refreshToken`, `token`).
    public struct Endpoint: Sendable, Hashable {
        public var path: String
        public var encoding: String
        public var grantType: String?
        public var fields: [String: String]

        public init(path: String, encoding: String, grantType: String? = nil, fields: [String: String]) {
            self.path = path
            self.encoding = encoding
            self.grantType = grantType
            self.fields = fields
        }
    }

    /// The profile's name (`json-v1`, `rfc6749`, or a team's own).
    public var name: String
    public var signIn: Endpoint
    public var refresh: Endpoint
    public var revocation: Endpoint
    /// `GET` with the access token: the account profile.
    public var profilePath: String
    public var resourcePrefix: String
    /// `tokenResponse` or `profile`: which response names the account.
    public var accountIDFrom: String
    /// The field of that response that holds the account id.
    public var accountIDField: String

    public init(name: String, signIn: Endpoint, refresh: Endpoint, revocation: Endpoint, profilePath: String,
                resourcePrefix: String, accountIDFrom: String, accountIDField: String) {
        self.name = name
        self.signIn = signIn
        self.refresh = refresh
        self.revocation = revocation
        self.profilePath = profilePath
        self.resourcePrefix = resourcePrefix
        self.accountIDFrom = accountIDFrom
        self.accountIDField = accountIDField
    }

    public var json: JSONValue {
        [
            "name": .string(name), "signIn": signIn.json, "refresh": refresh.json, "revocation": revocation.json,
            "profile": ["path": .string(profilePath)], "resources": ["prefix": .string(resourcePrefix)],
            "accountID": ["from": .string(accountIDFrom), "field": .string(accountIDField)],
        ]
    }

    public init(json: JSONValue) throws(ProtocolViolation) {
        let reader = try FieldReader(json, what: "the 'world' of a welcome")
        let profile = try FieldReader(reader.value("profile"), what: "the world's 'profile'")
        let resources = try FieldReader(reader.value("resources"), what: "the world's 'resources'")
        let accountID = try FieldReader(reader.value("accountID"), what: "the world's 'accountID'")
        self.init(
            name: try reader.string("name"),
            signIn: try Endpoint(json: reader.value("signIn"), what: "the world's 'signIn'"),
            refresh: try Endpoint(json: reader.value("refresh"), what: "the world's 'refresh'"),
            revocation: try Endpoint(json: reader.value("revocation"), what: "the world's 'revocation'"),
            profilePath: try profile.string("path"), resourcePrefix: try resources.string("prefix"),
            accountIDFrom: try accountID.string("from"), accountIDField: try accountID.string("field"))
    }
}

extension WorldDescription.Endpoint {
    var json: JSONValue {
        var object: [String: JSONValue] = [
            "path": .string(path), "encoding": .string(encoding), "fields": .object(fields.mapValues(JSONValue.string)),
        ]
        if let grantType { object["grantType"] = .string(grantType) }
        return .object(object)
    }

    init(json: JSONValue, what: String) throws(ProtocolViolation) {
        let reader = try FieldReader(json, what: what)
        self.init(path: try reader.string("path"), encoding: try reader.string("encoding"),
                  grantType: try reader.optionalString("grantType"), fields: try reader.stringMap("fields"))
    }
}
