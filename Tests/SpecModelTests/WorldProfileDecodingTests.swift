import Foundation
import SimulatedWorld
import SpecModel
import SpecYAML
import Testing

@Suite("World profile files")
struct WorldProfileDecodingTests {
    static func load(_ text: String, file: String = "Specs/worlds/team.yaml") -> SpecLoadResult {
        var result = SpecLoadResult()
        SpecLoader.load(bytes: Array(text.utf8), file: file, into: &result)
        return result
    }

    @Test("the shipped json-v1 and rfc6749 files decode to the built-in profiles the world defaults to")
    func shippedProfilesMatchTheBuiltIns() throws {
        let files = try SpecLoader.specFiles(under: PackagePaths.specs.appendingPathComponent("worlds").path)
        let load = SpecLoader.load(files: files)
        #expect(load.diagnostics.isEmpty, "\(load.renderer.render(load.diagnostics))")
        #expect(load.bundle.worlds.map(\.name).sorted() == ["json-v1", "rfc6749"])
        #expect(load.bundle.worlds.first { $0.name == "json-v1" } == WorldProfile.jsonV1)
        #expect(load.bundle.worlds.first { $0.name == "rfc6749" } == WorldProfile.rfc6749)
    }

    @Test("a team's profile decodes every setting: paths, encodings, grant types, field names, account id, token rules")
    func teamProfileDecodes() throws {
        let load = Self.load("""
            kind: world
            version: 1
            name: team-api
            signIn: { path: /api/session, encoding: json, fields: { username: login, password: secret } }
            refresh: { path: /api/renew, encoding: form, grantType: refresh_token, fields: { refreshToken: rt } }
            revocation: { path: /api/end, encoding: form, fields: { token: rt } }
            profile: { path: /api/whoami }
            resources: { prefix: /api/data/ }
            accountID: { from: profile, field: sub }
            tokens: { accessTokenLifetime: 60, rotation: false, reuseInterval: 30 }
            """)
        #expect(load.diagnostics.isEmpty, "\(load.renderer.render(load.diagnostics))")
        let profile = try #require(load.bundle.worlds.first)
        #expect(profile == WorldProfile(
            name: "team-api",
            signIn: .init(path: "/api/session", encoding: .json, grantType: nil, usernameField: "login", passwordField: "secret"),
            refresh: .init(path: "/api/renew", encoding: .form, grantType: "refresh_token", refreshTokenField: "rt"),
            revocation: .init(path: "/api/end", encoding: .form, tokenField: "rt"),
            profilePath: "/api/whoami", resourcePrefix: "/api/data/", accountID: .profile(field: "sub"),
            tokens: .init(accessTokenLifetime: 60, rotation: false, reuseInterval: 30)))
    }

    @Test("fields, profile, resources, accountID and tokens default to the RFC names and the world's defaults")
    func defaults() throws {
        let load = Self.load("""
            kind: world
            version: 1
            name: minimal
            signIn: { path: /token, encoding: form, grantType: password }
            refresh: { path: /token, encoding: form, grantType: refresh_token }
            revocation: { path: /revoke, encoding: form }
            """)
        #expect(load.diagnostics.isEmpty, "\(load.renderer.render(load.diagnostics))")
        let profile = try #require(load.bundle.worlds.first)
        var expected = WorldProfile.rfc6749
        expected.name = "minimal"
        expected.signIn.path = "/token"
        expected.refresh.path = "/token"
        expected.revocation.path = "/revoke"
        #expect(profile == expected)
    }

    @Test("a malformed profile renders every error in compiler form, with line, column and caret")
    func malformedProfileRendersInCompilerForm() {
        let load = Self.load("""
            kind: world
            version: 1
            name: team-api
            signIn: { path: /token, encoding: form, fields: { username: login } }
            refresh: { path: /token, encoding: form, grantType: refresh_token }
            revocation: { path: /revoke, encoding: jsn }
            tokens: { rotaton: false }
            """)
        #expect(load.renderer.render(load.diagnostics) == """
            Specs/worlds/team.yaml:4:9: error: sign-in and refresh share the path '/token', so sign-in needs a 'grantType' (such as password) to tell them apart
            signIn: { path: /token, encoding: form, fields: { username: login } }
                    ^
            Specs/worlds/team.yaml:6:40: error: the revocation 'encoding' 'jsn' is not one of json, form (did you mean 'json'?)
            revocation: { path: /revoke, encoding: jsn }
                                                   ^
            Specs/worlds/team.yaml:7:11: error: unknown key 'rotaton' in the world's 'tokens' (did you mean 'rotation'?)
            tokens: { rotaton: false }
                      ^

            """)
        #expect(load.bundle.worlds.isEmpty)
    }

    /// `json-v1`'s sign-in, refresh and revocation, on lines 4 to 6 of a profile `rendered` checks.
    static let endpoints = "signIn: { path: /auth/login, encoding: json }\nrefresh: { path: /auth/refresh, encoding: json }\n"
        + "revocation: { path: /auth/revoke, encoding: json }\n"

    /// The whole rendered error text of a profile whose first three lines are `kind`, `version` and `name`.
    static func rendered(_ body: String) -> String {
        let load = Self.load("kind: world\nversion: 1\nname: team-api\n" + body)
        return load.renderer.render(load.diagnostics)
    }

    @Test("two fields of one endpoint with one wire name are an error at the second, the first in a note")
    func duplicateFieldNames() {
        #expect(Self.rendered("""
            signIn:
              path: /api/session
              encoding: json
              fields: { username: email, password: email }
            refresh: { path: /api/renew, encoding: json }
            revocation: { path: /api/end, encoding: json }
            """) == """
            Specs/worlds/team.yaml:7:40: error: the sign-in fields 'username' and 'password' are both named 'email'; each needs a name of its own
              fields: { username: email, password: email }
                                                   ^
            Specs/worlds/team.yaml:7:23: note: 'username' is named 'email' here
              fields: { username: email, password: email }
                                  ^

            """)
    }

    @Test("a field named as another field's default name is an error at the field")
    func fieldNamedAsAnotherDefault() {
        #expect(Self.rendered("""
            signIn: { path: /api/session, encoding: json, fields: { username: password } }
            refresh: { path: /api/renew, encoding: json }
            revocation: { path: /api/end, encoding: json }
            """) == """
            Specs/worlds/team.yaml:4:67: error: the sign-in fields 'password' (by default) and 'username' are both named 'password'; each needs a name of its own
            signIn: { path: /api/session, encoding: json, fields: { username: password } }
                                                                              ^

            """)
    }

    @Test("a field named as a parameter its request already carries is an error: grant_type, token_type_hint, client_id, scope")
    func fieldNamedAsAProtocolParameter() {
        #expect(Self.rendered("""
            signIn: { path: /token, encoding: form, grantType: password, fields: { password: scope } }
            refresh: { path: /renew, encoding: json, fields: { refreshToken: grant_type } }
            revocation: { path: /revoke, encoding: form, fields: { token: token_type_hint } }
            """) == """
            Specs/worlds/team.yaml:4:82: error: the sign-in field 'password' is named 'scope', which the sign-in request uses for the scope (RFC 6749 §3.3); choose another name
            signIn: { path: /token, encoding: form, grantType: password, fields: { password: scope } }
                                                                                             ^
            Specs/worlds/team.yaml:5:66: error: the refresh field 'refreshToken' is named 'grant_type', which the refresh request uses for the grant type (RFC 6749 §4.3, §6); choose another name
            refresh: { path: /renew, encoding: json, fields: { refreshToken: grant_type } }
                                                                             ^
            Specs/worlds/team.yaml:6:63: error: the revocation field 'token' is named 'token_type_hint', which the revocation request uses for the token type hint (RFC 7009 §2.1); choose another name
            revocation: { path: /revoke, encoding: form, fields: { token: token_type_hint } }
                                                                          ^

            """)
    }

    @Test("a control character in a path is an error at the path", arguments: ["\\0", "\\x01", "\\e", "\\x7F"])
    func controlCharacterInPath(escape: String) {
        let rendered = Self.rendered("""
            signIn: { path: "/api/\(escape)session", encoding: json }
            refresh: { path: /api/renew, encoding: json }
            revocation: { path: /api/end, encoding: json }
            """)
        let code = ["\\0": "0000", "\\x01": "0001", "\\x7F": "007F", "\\e": "001B"][escape] ?? ""
        #expect(rendered.hasPrefix("Specs/worlds/team.yaml:4:17: error: the sign-in 'path' contains the control character U+\(code); a path is printable text\n"), "\(rendered)")
    }

    @Test("a resources prefix of '/' is an error: it covers every other endpoint's path")
    func rootResourcePrefix() {
        #expect(Self.rendered(Self.endpoints + "resources: { prefix: / }\n") == """
            Specs/worlds/team.yaml:7:22: error: the resources prefix '/' covers every path, the other endpoints' too; give resources a folder of their own, such as '/resources/'
            resources: { prefix: / }
                                 ^

            """)
    }

    @Test("a resources prefix another endpoint's path starts with is an error, and so is one overlapping /accounts/")
    func resourcePrefixCoveringAnEndpoint() {
        #expect(Self.rendered("""
            signIn: { path: /api/login, encoding: json }
            refresh: { path: /auth/refresh, encoding: json }
            revocation: { path: /auth/revoke, encoding: json }
            resources: { prefix: /api/ }
            """) == """
            Specs/worlds/team.yaml:7:22: error: the resources prefix '/api/' covers the sign-in path '/api/login'; no other endpoint's path may start with it
            resources: { prefix: /api/ }
                                 ^
            Specs/worlds/team.yaml:4:17: note: the sign-in path
            signIn: { path: /api/login, encoding: json }
                            ^

            """)
        #expect(Self.rendered(Self.endpoints + "profile: { path: /api/me }\nresources: { prefix: /api/ }\n") == """
            Specs/worlds/team.yaml:8:22: error: the resources prefix '/api/' covers the profile path '/api/me'; no other endpoint's path may start with it
            resources: { prefix: /api/ }
                                 ^
            Specs/worlds/team.yaml:7:18: note: the profile path
            profile: { path: /api/me }
                             ^

            """)
        #expect(Self.rendered(Self.endpoints + "resources: { prefix: /accounts/ }\n") == """
            Specs/worlds/team.yaml:7:22: error: the resources prefix '/accounts/' overlaps '/accounts/{account_id}/resources/{name}', which the world serves under every profile
            resources: { prefix: /accounts/ }
                                 ^

            """)
    }

    @Test("a profile path that is also an auth endpoint's path is an error: the world answers it as that endpoint")
    func profilePathOfAnAuthEndpoint() {
        #expect(Self.rendered(Self.endpoints + "profile: { path: /auth/login }\n") == """
            Specs/worlds/team.yaml:7:18: error: the profile path '/auth/login' is also the sign-in path; the profile needs a path of its own
            profile: { path: /auth/login }
                             ^
            Specs/worlds/team.yaml:4:17: note: the sign-in path
            signIn: { path: /auth/login, encoding: json }
                            ^

            """)
    }

    @Test("a 100,000-deep world file is refused at its first node past the depth limit")
    func hundredThousandLevels() {
        let rendered = Self.rendered("tokens: " + String(repeating: "{a: ", count: 100_000) + "1" + String(repeating: "}", count: 100_000) + "\n")
        // A 120-character window around the column, the caret under the 64th key `a`.
        #expect(rendered == "Specs/worlds/team.yaml:4:258: error: nesting is deeper than 64 levels; reading stopped here\n"
            + "..." + String(repeating: "a: {", count: 30) + "...\n" + String(repeating: " ", count: 63) + "^\n")
    }

    @Test("a world file that is a device is refused at once, before a byte is read")
    func endlessFile() {
        let load = SpecLoader.load(files: ["/dev/zero"])
        #expect(load.renderer.render(load.diagnostics)
            == "/dev/zero:1:1: error: cannot read the file (it is a character device; only a regular file is read)\n")
    }

    @Test("two profiles with one name are an error that points at the first")
    func duplicateNames() {
        var result = SpecLoadResult()
        let text = "kind: world\nversion: 1\nname: same\nsignIn: { path: /a, encoding: json }\nrefresh: { path: /b, encoding: json }\nrevocation: { path: /c, encoding: json }\n"
        SpecLoader.load(bytes: Array(text.utf8), file: "one.yaml", into: &result)
        SpecLoader.load(bytes: Array(text.utf8), file: "two.yaml", into: &result)
        #expect(result.diagnostics.map(\.message) == ["a second world named 'same'; each world profile needs its own name"])
        #expect(result.bundle.worlds.count == 1)
    }
}
