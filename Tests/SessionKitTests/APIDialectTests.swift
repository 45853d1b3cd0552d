import Foundation
import SessionKit
import SessionKitTesting
import SimulatedWorld
import Testing

/// SessionKit speaks a world profile's endpoints when its configuration says so (`APIPaths`, `APIDialect`).
@Suite("SessionKit speaks other API dialects", .timeLimit(.minutes(10)))
struct APIDialectTests {
    static func body(_ request: HTTPRequest) -> String { request.body.map { String(decoding: $0, as: UTF8.self) } ?? "" }

    @Test("Under rfc6749: form-encoded password and refresh grants to /oauth/token, RFC 7009 revocation at /oauth/revoke")
    func rfc6749() async throws {
        let world = TestWorld.standard(profile: .rfc6749)
        let process = world.startProcess(configuration: SessionConfiguration(paths: .rfc6749, dialect: .rfc6749))
        await process.client.launch()
        let profile = try await process.client.signIn(email: Fixture.alice.email, password: Fixture.alice.password)
        #expect(profile.accountID == Fixture.alice.id)

        world.server.expireAccessTokens()
        _ = try await process.client.fetch("inbox")
        await process.client.signOut()
        await world.trace.waitForRequests(.path("/oauth/revoke"))

        let auth = world.trace.requests().filter { $0.path.hasPrefix("/oauth/") }
        #expect(auth.map(\.path) == ["/oauth/token", "/oauth/token", "/oauth/revoke"])
        #expect(auth.allSatisfy { $0.headers["Content-Type"] == "application/x-www-form-urlencoded" })
        #expect(Self.body(auth[0]) == "grant_type=password&password=alice-password&username=alice%40example.com")
        #expect(Self.body(auth[1]).hasPrefix("grant_type=refresh_token&refresh_token="))
        #expect(Self.body(auth[2]).hasPrefix("token=") && Self.body(auth[2]).hasSuffix("&token_type_hint=refresh_token"))
        #expect(world.trace.requests().allSatisfy { !$0.path.hasPrefix("/auth/") })
        #expect(world.storedRecord?.account == nil)
        #expect(world.server.isFamilyRevoked(ofRefreshToken: world.tokens(.refresh).last ?? ""), "the revocation revoked the family")
    }

    @Test("With the account id only in the profile, sign-in reads it from /me with the new access token")
    func accountFromProfile() async throws {
        var profileWorld = WorldProfile.jsonV1
        profileWorld.name = "account-from-me"
        profileWorld.accountID = .profile(field: "sub")
        let world = TestWorld.standard(profile: profileWorld)
        var dialect = APIDialect.jsonV1
        dialect.accountID = .profile(field: "sub")
        let process = world.startProcess(configuration: SessionConfiguration(dialect: dialect))
        await process.client.launch()
        let profile = try await process.client.signIn(email: Fixture.alice.email, password: Fixture.alice.password)
        #expect(profile.accountID == Fixture.alice.id)
        #expect(world.storedRecord?.account == Fixture.alice.id)
        let paths = world.trace.requests().map(\.path)
        #expect(paths.first == "/auth/login")
        #expect(paths.dropFirst().first == "/me", "the account id comes from the profile, before the session is stored")
    }
}
