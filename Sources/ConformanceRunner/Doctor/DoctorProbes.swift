import SpecModel

/// The fixed script `doctor` plays: short cases in the case language, each exercising a part of the protocol.
/// They expect nothing (the client's verdicts are `run`'s business); `doctor` reads what the adapter sent.
enum DoctorProbes {
    static let file = "doctor-probes.yaml"

    /// No probe stops early (a `require`, a `release` after the client gave up): every oracle judges each
    /// trace, so the token and unanswered-command checks always have their findings. The deadline probe ends
    /// with its request still held. The order matters: `fresh-after-reset` comes right after a probe that ends signed in, so that an
    /// adapter declaring `reset` plays it on that probe's process, reset.
    static let yaml = """
        kind: cases
        version: 1
        cases:
          - id: sign-in
            title: Launch, sign in with a password, show one resource
            requirements: [SESSION-STATE-MACHINE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - request: { resource: news }

          - id: fresh-after-reset
            title: A launch with nothing stored, on the sign-in probe's process reset (when the adapter declares 'reset')
            requirements: [RESTORE-EXPLICIT-STATE]
            steps:
              - launch: {}

          - id: refresh
            title: Requests after the access token expired refresh the session
            requirements: [REFRESH-SINGLE-FLIGHT]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - advance: { seconds: 3600 }
              - request: { resource: news, count: 3 }

          - id: deadline
            title: A request the world holds for two minutes of the virtual clock
            requirements: [REFRESH-RETRYABLE-BACKOFF]
            timeouts: true
            steps:
              - launch: {}
              - signIn: { account: alice }
              - hold: { path: /resources/* }
              - request: { resource: news }
              - advance: { seconds: 120 }

          - id: kill-and-relaunch
            title: A process death after sign-in, a relaunch, a request
            requirements: [PROCESS-DEATH-SAFE]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - kill: {}
              - launch: {}
              - request: { resource: news }

          - id: sign-out
            title: Sign in, then sign out
            requirements: [SIGNOUT-BLOCK-AND-CLEAR]
            steps:
              - launch: {}
              - signIn: { account: alice }
              - signOut: {}

        """

    /// The probes as cases; a spec error here is the suite's own bug, which a test rules out.
    static func cases() -> [AcceptanceCase] {
        var result = SpecLoader.load(files: [])
        SpecLoader.load(bytes: Array(yaml.utf8), file: file, into: &result)
        precondition(!result.hasErrors, result.renderer.render(result.diagnostics))
        return result.bundle.cases
    }
}
