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
