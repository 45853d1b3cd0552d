import AdapterKit
import KnownBadClients

/// The naive iOS, Android and Flutter code of Specs/sources/003_a7334a1b43f9a998.txt, ported faithfully
/// (Sources/KnownBadClients). `expected` lists what each port's 003 code breaks, the requirements whose
/// `resolution` rejects that code among them; `alsoFails` is the documented superset, each with why.
extension MutantRegistry {
    /// What all three fail besides their own defects: naive session code has no generations, no revocation
    /// and no restoring phase, and the cases' shared `expect` steps charge what follows to every
    /// requirement they name.
    private static let naiveCommon: [(id: String, why: String)] = [
        ("CACHE-PARTITION-BY-ACCOUNT", "rapid-switching: A's late response on B's screen fails its last step, which cannot tell a late response from a cache keyed by path and names both"),
        ("CACHE-CLEAR-ON-SWITCH", "sign-out-blocks-and-clears: logout() only clears storage, so the next request still goes to the network, in the step that checks what sign-out blocks and clears"),
        ("RESTORE-EXPLICIT-STATE", "the session check decides at once: there is no restoring phase, so no-private-content-while-restoring shows the inbox and launch-before-first-unlock signs out"),
        ("RESTORE-NO-PRIVATE-BEFORE-VALIDATION", "no-private-content-while-restoring: with no restoring phase the inbox is fetched and shown before any validation"),
        ("REFRESH-RETRYABLE-BACKOFF", "clearing the tokens on a timeout, a 503 or a lost response does not keep the session"),
        ("REFRESH-REJECTION-ONE-TRANSITION", "launch-with-revoked-session (a revoked session is not found out at launch) and lost-refresh-response-without-reuse-interval (the lost response already cleared the tokens, so no retry is refused and nothing is revoked)"),
        ("REFRESH-REJECTION-CANCELS-PENDING", "rejected-refresh-is-one-transition: after the rejection a new request still goes to the network"),
        ("REFRESH-NOT-THROUGH-401-HANDLER", "lost-refresh-response-without-reuse-interval and rejected-refresh-is-one-transition: the steps of REFRESH-REJECTION-ONE-TRANSITION and -CANCELS-PENDING, charged to every requirement the cases name"),
        ("PROCESS-DEATH-SAFE", "lost-refresh-response-with-reuse-interval: the lost response clears the tokens instead of being recovered within the reuse interval"),
        ("SIGNIN-PROMPT-ONCE", "the session-ending cases count one prompt in steps charged to all their requirements; a revoked session that is never found out shows none"),
        ("SIGNOUT-OFFLINE-SIGNED-OUT-UI", "offline-sign-out-survives-process-death: logout() only clears storage, so a request after it still goes to the network"),
    ]

    static let ports: [Mutant] = [
        Mutant(name: "naive-ios", kind: .port,
               defect: "003's iOS TokenRefreshCoordinator, AuthenticatedAPIClient, KeychainTokenStore, checkAuth and logout",
               violates: "000/001 wherever 003's iOS code contradicts them",
               expected: [
                   "RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED", "REFRESH-ONLY-REJECTION-SIGNS-OUT", "STORAGE-LOCKED-NOT-SIGNOUT",
                   "STORAGE-ATOMIC-PAIR", "STORAGE-BACKGROUND-ACCESSIBILITY", "REFRESH-USE-LATEST-TOKEN",
                   "EPOCH-DISCARD-STALE-RESPONSES", "EPOCH-DISCARD-STALE-REFRESH", "SIGNOUT-BLOCK-AND-CLEAR", "SIGNOUT-REVOCATION-RETRY",
               ],
               alsoFails: naiveCommon.filter { $0.id != "PROCESS-DEATH-SAFE" } + [
                   ("PROCESS-DEATH-SAFE", "the two Keychain items are replaced one after the other (delete, add): a kill between them leaves no access token, or a new one beside the rotated refresh token; and a lost refresh response clears the tokens"),
                   ("REFRESH-PERSIST-BEFORE-USE", "killed-before-storing-rotated-tokens-with-reuse-interval and killed-after-storing-rotated-tokens: the same split pair, after which the next launch signs out or its refresh is refused"),
                   ("ROTATION-OLD-TOKEN-NEVER-REUSED", "killed-after-storing-rotated-tokens: the new access token was written, the rotated refresh token was not replaced, and the next refresh sends it"),
               ]) {
            HostedClientAdapter<NaiveIOSClient>(identity: NaiveIOSClient.identity)
        },
        Mutant(name: "naive-android", kind: .port,
               defect: "003's Android TokenAuthenticator, SecureTokenStore, ViewModel check and logout",
               violates: "000/001 wherever 003's Android code contradicts them",
               expected: [
                   "REFRESH-SINGLE-FLIGHT", "REFRESH-PERSIST-BEFORE-USE", "REFRESH-ONLY-REJECTION-SIGNS-OUT", "RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED",
                   "STORAGE-LOCKED-NOT-SIGNOUT", "EPOCH-DISCARD-STALE-RESPONSES", "EPOCH-DISCARD-STALE-REFRESH", "SIGNOUT-BLOCK-AND-CLEAR",
                   "SIGNOUT-REVOCATION-RETRY",
               ],
               alsoFails: naiveCommon + [
                   ("REFRESH-RETRY-ONCE", "the five and thousand concurrent 401 cases: the concurrent refreshes revoke the family and no request is retried, in steps charged to every requirement they name"),
                   ("EPOCH-INCREMENT", "rejected-refresh-is-one-transition: three concurrent refreshes and no prompt, in a step charged to every requirement the case names"),
                   ("SESSION-STATE-MACHINE", "five-concurrent-401s-share-one-refresh: the refresh storm ends in a rejection, in a step charged to every requirement the case names"),
               ]) {
            HostedClientAdapter<NaiveAndroidClient>(identity: NaiveAndroidClient.identity)
        },
        Mutant(name: "naive-flutter", kind: .port,
               defect: "003's Flutter AuthInterceptor, SecureTokenStore, AppBloc check and logout",
               violates: "000/001 wherever 003's Flutter code contradicts them",
               expected: [
                   "STORAGE-ATOMIC-PAIR", "REFRESH-RETRY-ONCE", "REFRESH-USE-LATEST-TOKEN", "REFRESH-ONLY-REJECTION-SIGNS-OUT",
                   "RESTORE-TOKEN-PRESENCE-NOT-AUTHENTICATED", "STORAGE-LOCKED-NOT-SIGNOUT", "EPOCH-DISCARD-STALE-RESPONSES",
                   "EPOCH-DISCARD-STALE-REFRESH", "SIGNOUT-BLOCK-AND-CLEAR", "SIGNOUT-REVOCATION-RETRY",
               ],
               alsoFails: naiveCommon) {
            HostedClientAdapter<NaiveFlutterClient>(identity: NaiveFlutterClient.identity)
        },
    ]
}
