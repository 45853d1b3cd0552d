import AdapterKit
import KnownBadClients

/// The naive iOS, Android and Flutter code of Specs/sources/003_a7334a1b43f9a998.txt, ported faithfully
/// (Sources/KnownBadClients). `expected` lists what each port's 003 code breaks, the requirements whose
/// `resolution` rejects that code among them; `alsoFails` is the documented superset, each with why.
extension MutantRegistry {
    /// What all three fail besides their own defects, each for a behaviour of the naive code itself: it has
    /// no session state beside the stored tokens, so ending a session only clears storage.
    private static let naiveCommon: [(id: String, why: String)] = [
        ("REFRESH-REJECTION-CANCELS-PENDING", "a rejected refresh only clears the stored tokens: nothing invalidates the session centrally, so the next request still goes to the network"),
        ("REFRESH-REJECTION-ONE-TRANSITION", "the same: clearing storage is the whole reaction to a rejection, so the session does not end as one transition and a request after it is still sent"),
        ("REFRESH-RETRYABLE-BACKOFF", "any refresh failure clears the tokens, so a timeout never defers the refresh to retry after a backoff"),
        ("SIGNOUT-OFFLINE-SIGNED-OUT-UI", "logout() only clears storage, so after an offline sign-out a request still goes to the network"),
        ("SIGNIN-VALIDATE-INPUT", "the login form checks only that the email contains an @, so an address with nothing after it is sent to the server"),
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
               alsoFails: naiveCommon + [
                   ("PROCESS-DEATH-SAFE", "the two Keychain items are replaced one after the other (delete, add): a kill between them leaves a mixed pair, and the next launch's refresh is refused"),
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
                   ("SIGNIN-PROMPT-ONCE", "a session that ends because a refresh was refused clears the tokens and shows no sign-in prompt at all"),
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
               alsoFails: naiveCommon + [
                   ("PROCESS-DEATH-SAFE", "the access and refresh tokens are written as two items one after the other: a kill between them leaves a mixed pair, and the next launch's refresh is refused"),
                   ("REFRESH-PERSIST-BEFORE-USE", "the result of a token write is never checked: when secure storage refuses the write of a new sign-in's or a refresh's token, the client sends the token it could not store"),
                   ("SIGNIN-PROMPT-ONCE", "a session that ends because a refresh was refused clears the tokens and shows no sign-in prompt at all"),
               ]) {
            HostedClientAdapter<NaiveFlutterClient>(identity: NaiveFlutterClient.identity)
        },
    ]
}
