import Foundation
import SessionKit
import SessionKitTesting
import Testing

/// Behaviour 10: expiry comes from `expires_in` against the monotonic clock at receipt, so a device
/// clock hours or days off causes neither a refresh storm nor a sign-out.
@Suite("Clock skew is harmless", .timeLimit(.minutes(10)))
struct ClockSkewTests {
    static let skews: [Duration] = [.seconds(3 * 86_400), .seconds(-3 * 86_400), .seconds(7_200), .seconds(-7_200)]

    @Test("A skewed device clock causes no refresh storm and no sign-out", arguments: skews)
    func skewCausesNothing(skew: Duration) async throws {
        let world = TestWorld.standard()
        world.clock.setWallClockSkew(skew)
        let process = try await world.signedInProcess()

        for _ in 0..<20 { _ = try await process.client.fetch("inbox") }

        #expect(world.server.requestCount(.refresh) == 0)
        #expect(world.server.unauthorizedCount == 0)
        #expect(await process.client.snapshot.phase == .authenticated)
    }

    @Test("Expiry follows the monotonic clock: refresh just before expires_in elapses, not on 401", arguments: skews)
    func refreshFollowsMonotonicClock(skew: Duration) async throws {
        let world = TestWorld.standard()
        world.clock.setWallClockSkew(skew)
        let process = try await world.signedInProcess()

        world.clock.advance(by: .seconds(260))
        _ = try await process.client.fetch("inbox")
        #expect(world.server.requestCount(.refresh) == 0, "still fresh at 260 s of 300")

        world.clock.advance(by: .seconds(20))
        _ = try await process.client.fetch("inbox")
        #expect(world.server.requestCount(.refresh) == 1, "refreshed within the 30 s leeway")
        #expect(world.server.unauthorizedCount == 0, "before the server had to refuse it")
    }

    @Test("The device clock jumping mid-session changes nothing")
    func wallClockJump() async throws {
        let world = TestWorld.standard()
        let process = try await world.signedInProcess()
        world.clock.setWallClockSkew(.seconds(10 * 86_400))
        _ = try await process.client.fetch("inbox")
        world.clock.setWallClockSkew(.seconds(-10 * 86_400))
        _ = try await process.client.fetch("inbox")
        #expect(world.server.requestCount(.refresh) == 0)
        #expect(await process.client.snapshot.phase == .authenticated)
    }
}
