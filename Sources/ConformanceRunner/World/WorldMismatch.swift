import ConformanceProtocol
import SimulatedWorld

/// A client that speaks another world profile than the one it is played under gets a 404 for every sign-in:
/// every case then fails, and an exploration explores nothing, for a reason that is no requirement's. This
/// names the first request that addresses an endpoint of another shipped profile and none of this one's.
public enum WorldMismatch {
    public static func hint(in outcomes: some Sequence<CaseOutcome>, profile: WorldProfile) -> String? {
        for outcome in outcomes {
            for event in outcome.trace.events {
                guard case .received(.http(_, _, let request)) = event.kind, profile.logical(request) == nil,
                      let other = WorldProfile.shipped.first(where: {
                          $0.name != profile.name && [.login, .refresh, .revoke].contains($0.logical(request))
                      })
                else { continue }
                return "the client sent \(request.method) \(request.path), which the world profile \(profile.name) does not serve "
                    + "(\(other.name) does): if the client speaks \(other.name), pass --world \(other.name)"
            }
        }
        return nil
    }

    /// Whether the client reached an authenticated session in this case.
    static func signedIn(_ outcome: CaseOutcome) -> Bool {
        outcome.trace.events.contains {
            if case .received(.transition(let transition)) = $0.kind { return transition.to == "authenticated" }
            return false
        }
    }

    /// Whether the case asked the client to sign in.
    static func askedToSignIn(_ outcome: CaseOutcome) -> Bool {
        outcome.trace.events.contains {
            if case .sent(.command(let command)) = $0.kind { return command.kind == .signIn }
            return false
        }
    }
}
