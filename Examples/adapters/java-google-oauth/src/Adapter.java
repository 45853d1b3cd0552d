import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import com.google.api.client.auth.oauth2.BearerToken;
import com.google.api.client.auth.oauth2.ClientParametersAuthentication;
import com.google.api.client.auth.oauth2.Credential;
import com.google.api.client.auth.oauth2.CredentialRefreshListener;
import com.google.api.client.auth.oauth2.PasswordTokenRequest;
import com.google.api.client.auth.oauth2.StoredCredential;
import com.google.api.client.auth.oauth2.TokenErrorResponse;
import com.google.api.client.auth.oauth2.TokenResponse;
import com.google.api.client.auth.oauth2.TokenResponseException;
import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpRequestFactory;
import com.google.api.client.http.HttpResponse;
import com.google.api.client.http.HttpResponseException;
import com.google.api.client.http.UrlEncodedContent;
import com.google.api.client.http.HttpTransport;
import com.google.api.client.http.apache.ApacheHttpTransport;
import com.google.api.client.json.JsonFactory;
import com.google.api.client.json.gson.GsonFactory;
import com.google.api.client.http.HttpExecuteInterceptor;
import com.google.api.client.http.HttpUnsuccessfulResponseHandler;
import com.google.api.client.util.Clock;
import org.sessionconformance.kit.AppError;
import org.sessionconformance.kit.Client;
import org.sessionconformance.kit.Host;
import org.sessionconformance.kit.Json;
import org.sessionconformance.kit.StaleSession;

/**
 * An app built on Google's OAuth client for Java (Debian's libgoogle-oauth-client-java 1.34.1 and
 * libgoogle-http-client-java 1.42.0), used as it is: a `Credential` with the Authorization-header bearer
 * method is each request's `HttpRequestInitializer`, so its `intercept` adds the token (refreshing first when
 * it expires within a minute) and its `handleResponse` refreshes on a 401 and lets `HttpRequest` retry;
 * `PasswordTokenRequest` signs in; the `Credential` refreshes with its own `RefreshTokenRequest` at the token
 * server URL it was built with and tells a `CredentialRefreshListener`, which persists the new pair to secure
 * storage. HTTP is the library's Apache transport to the runner's loopback server (see newTransport).
 *
 * The app around the library (what any app on it must write): the session's states and generation, the
 * launch restore (read storage, validate with GET /me), sign-in, sign-out with RFC 7009 revocation (the
 * library has no revocation class: a POST through its transport), account switch, and a guard that lets no
 * request of an ended session go out. Nothing of the library is subclassed or overridden; README.md says,
 * requirement by requirement, what the suite finds.
 *
 * The protocol is the JVM kit's (kits/jvm): commands on threads of their own, effects, barriers answered when
 * every thread waits for the runner or is parked on a lock whose owner does (the Credential's lock, held across
 * the refresh request), reset. This file adds the library's hooks for loopback counting (plumb).
 */
public final class Adapter {
    static final Host host = new Host();
    static final String CLIENT_ID = "conformance-example";
    /** The item the credentials live in: google-oauth-client's data store id for StoredCredential. */
    static final String STORE = StoredCredential.DEFAULT_DATA_STORE_ID;
    static final JsonFactory JSON = GsonFactory.getDefaultInstance();
    /**
     * The app's guard on the library's requests (sessionGuard, tokenGuard). GOOGLE_OAUTH_EXAMPLE_UNGUARDED=1
     * turns it off, to show what the library does on its own (README.md, "What the app must add").
     */
    static final boolean GUARDED = System.getenv("GOOGLE_OAUTH_EXAMPLE_UNGUARDED") == null;

    /** One signed-in session: its account, the library's Credential, and the request factory built on it. */
    static final class Session {
        final String account;
        Credential credential;
        HttpRequestFactory requests;

        Session(String account) { this.account = account; }
    }

    /**
     * The library's Apache transport (com.google.api.client.http.apache.ApacheHttpTransport, in
     * google-http-client.jar) from its own Builder, retries off, with the connection pool widened: its
     * default of 20 connections per route would queue the rest of a burst inside the pool, requests this
     * adapter has counted as started that the runner never receives. Not NetHttpTransport: the JDK's
     * HttpURLConnection re-sends a GET once, unseen, when its connection is reset (see README.md).
     */
    @SuppressWarnings("deprecation")
    static HttpTransport newTransport() {
        ApacheHttpTransport.Builder builder = new ApacheHttpTransport.Builder();
        org.apache.http.conn.params.ConnManagerParams.setMaxTotalConnections(builder.getHttpParams(), 4096);
        org.apache.http.conn.params.ConnManagerParams.setMaxConnectionsPerRoute(builder.getHttpParams(),
                new org.apache.http.conn.params.ConnPerRouteBean(4096));
        return builder.build();
    }

    static final class App implements Client {
        private final HttpTransport transport = newTransport();
        private GenericUrl tokenUrl;
        private final ClientParametersAuthentication client = new ClientParametersAuthentication(CLIENT_ID, null);
        /** The device's clock, from the runner: the library reads expiry through it (Credential.Builder#setClock). */
        private final Clock deviceClock = () -> (long) (host.wall() * 1000);

        private String state = "restoring";
        private long generation = 1;
        private boolean launched;
        private Session current;
        private boolean online = true;
        private boolean locked;
        private final List<CompletableFuture<Map<String, Object>>> waitingForDevice = new ArrayList<>();
        /** The secure-storage item as last written: credentials by account, refresh tokens to revoke. */
        private Map<String, Object> record = newRecord();
        private boolean revoking;
        /** Request commands in flight, with the generation they started in. */
        private final Map<String, Long> inFlight = new HashMap<>();

        @Override public void welcome(Map<String, Object> welcome) {
            tokenUrl = new GenericUrl(host.baseURL() + "/oauth/token");
        }

        @Override public Object perform(Map<String, Object> command) {
            String id = (String) command.get("id");
            switch ((String) command.get("command")) {
                case "launch": return launch();
                case "signIn": return signIn(id, (String) command.get("email"), (String) command.get("password"), false);
                case "switchAccount": return switchAccount(id, (String) command.get("email"), (String) command.get("password"));
                case "signOut": signOut(id); return null;
                case "request": return fetch(id, (String) command.get("resource"));
                case "lock": synchronized (this) { locked = true; } return null;
                case "unlock": synchronized (this) { locked = false; } wakeDeviceWaiters(); return null;
                case "offline": synchronized (this) { online = false; } return null;
                case "online": synchronized (this) { online = true; } wakeDeviceWaiters(); kickRevocations(); return null;
                default: return null;
            }
        }

        // ---- The library's objects, one Credential per session.

        private Credential newCredential(Session session) {
            Credential credential = new Credential.Builder(BearerToken.authorizationHeaderAccessMethod())
                    .setTransport(transport)
                    .setJsonFactory(JSON)
                    .setTokenServerUrl(tokenUrl)
                    .setClientAuthentication(client)
                    .setClock(deviceClock)
                    .setRequestInitializer(request -> plumb(request, tokenGuard(session)))
                    .setRefreshListeners(List.of(new Persistence(session)))
                    .build();
            session.credential = credential;
            session.requests = transport.createRequestFactory(request -> {
                credential.initialize(request);
                plumb(request, sessionGuard(session));
            });
            return credential;
        }

        /** A request of an ended session never goes out (the library would send it, without a token if need be). */
        private Guard sessionGuard(Session session) {
            return request -> {
                synchronized (App.this) {
                    if (current != session && GUARDED) throw new IOException("the session ended");
                }
            };
        }

        /** The Credential's own token requests: the app's guard, and the refresh reported as the state machine's. */
        private Guard tokenGuard(Session session) {
            return new Guard() {
                @Override public void admit(HttpRequest request) throws IOException {
                    synchronized (App.this) {
                        if (current != session && GUARDED) throw new IOException("the session ended");
                        if ("authenticated".equals(state)) transition("refresh-started", "refreshing", "accessTokenRejected");
                    }
                }

                @Override public void transportFailed(HttpRequest request) {
                    refreshDeferred(session, "timeout");
                }
            };
        }

        /** The CredentialRefreshListener: the new pair goes to secure storage before the library uses it. */
        final class Persistence implements CredentialRefreshListener {
            private final Session session;

            Persistence(Session session) { this.session = session; }

            @Override public void onTokenResponse(Credential credential, TokenResponse response) {
                Host.Effect<Map<String, Object>> write;
                synchronized (App.this) {
                    if (current != session) return; // a refresh that outlived its session: not saved
                    credentials().put(session.account, stored(new StoredCredential(credential)));
                    write = writeRecord();
                }
                host.await(write);
                synchronized (App.this) {
                    if (current == session && "refreshing".equals(state)) transition("refresh-succeeded", "authenticated", "tokensRotated");
                }
            }

            @Override public void onTokenErrorResponse(Credential credential, TokenErrorResponse error) {
                if (error != null && "invalid_grant".equals(error.getError())) {
                    rejected(session);
                } else {
                    refreshDeferred(session, "serverError");
                }
            }
        }

        // ---- Launch: restore through `restoring`.

        Object launch() {
            long gen;
            synchronized (this) {
                if (launched) return Json.map("state", state);
                launched = true;
                transition(null, "restoring", "launch");
                gen = generation;
            }
            Session session = null;
            while (session == null) {
                Map<String, Object> reply = host.call(Json.map("type", "storage", "op", "get", "key", STORE));
                if (reply.containsKey("error")) { // locked before the first unlock: wait, still restoring
                    if (!waitForDevice(gen)) return stateMap();
                    continue;
                }
                synchronized (this) {
                    if (generation != gen) return stateMap();
                    record = reply.get("value") == null ? newRecord() : Json.object((String) reply.get("value"));
                    if (credentials().isEmpty()) {
                        transition("restore-failed", "signedOut", "noStoredSession");
                        prompt();
                        kickRevocations();
                        return stateMap();
                    }
                    String account = credentials().keySet().iterator().next();
                    Map<String, Object> stored = Json.asMap(credentials().get(account));
                    session = new Session(account);
                    Credential credential = newCredential(session);
                    credential.setAccessToken((String) stored.get("accessToken"));
                    credential.setRefreshToken((String) stored.get("refreshToken"));
                    Object expiry = stored.get("expirationTimeMilliseconds");
                    credential.setExpirationTimeMilliseconds(expiry == null ? null : ((Number) expiry).longValue());
                    current = session;
                }
            }
            kickRevocations();
            int failures = 0;
            while (true) {
                synchronized (this) {
                    if (generation != gen || current != session) return stateMap();
                }
                if (!isOnline() && !waitForDevice(gen)) return stateMap();
                try {
                    HttpResponse response = session.requests.buildGetRequest(new GenericUrl(host.baseURL() + "/me")).execute();
                    response.disconnect();
                    synchronized (this) {
                        if (generation != gen || current != session) return stateMap();
                        transition("restore-validated", "authenticated", "sessionValidated");
                        return stateMap();
                    }
                } catch (IOException failure) {
                    // a 5xx, a refresh that could not run, a reset: still restoring; a rejection ended it already
                }
                synchronized (this) {
                    if (generation != gen || current != session) return stateMap();
                }
                failures += 1;
                host.call(Json.map("type", "sleep", "seconds", (double) Math.min(60, 1 << Math.min(failures - 1, 6))));
            }
        }

        // ---- Sign-in, switch, sign-out.

        /** One @ between a name and a domain, no whitespace: "alice@" and "@example.com" are refused before any request. */
        static boolean plausibleEmail(String email) {
            if (email == null || email.chars().anyMatch(Character::isWhitespace)) return false;
            int at = email.indexOf('@');
            return at > 0 && at == email.lastIndexOf('@') && at < email.length() - 1;
        }

        Object signIn(String commandId, String email, String password, boolean switching) {
            if (!plausibleEmail(email)) throw new AppError("invalidInput", "Invalid email format", true);
            if (password == null || password.length() < 8) throw new AppError("invalidInput", "Password must be at least 8 characters", true);
            long gen;
            synchronized (this) {
                if (!switching) {
                    if (!"signedOut".equals(state)) throw new AppError("alreadySignedIn", "a session is active", true);
                    transition("sign-in-started", "signingIn", "userSignIn");
                }
                gen = generation;
                inFlight.put(commandId, gen);
            }
            try {
                return completeSignIn(email, password, gen);
            } finally {
                synchronized (this) {
                    inFlight.remove(commandId);
                }
            }
        }

        private Object completeSignIn(String email, String password, long gen) {
            TokenResponse tokens;
            try {
                tokens = new PasswordTokenRequest(transport, JSON, tokenUrl, email, password)
                        .setClientAuthentication(client)
                        .setRequestInitializer(request -> plumb(request, r -> {
                            synchronized (App.this) {
                                if (generation != gen) throw new IOException("the sign-in was abandoned");
                            }
                        }))
                        .execute();
            } catch (TokenResponseException rejected) {
                signInFailed(gen, "invalidCredentials");
                throw new AppError("invalidCredentials", "sign-in refused", true);
            } catch (IOException failure) {
                signInFailed(gen, "transportFailure");
                throw new AppError("transportFailure", "sign-in failed", false);
            }
            Session session = new Session((String) tokens.get("account_id"));
            newCredential(session).setFromTokenResponse(tokens);
            Host.Effect<Map<String, Object>> write;
            synchronized (this) {
                if (generation != gen) { // cancelled while the login was on the wire: never stored, revoked
                    if (tokens.getRefreshToken() != null) revocations().add(tokens.getRefreshToken());
                    kickRevocations();
                    throw new AppError("sessionEnded", "the sign-in was cancelled", true);
                }
                credentials().clear();
                credentials().put(session.account, stored(new StoredCredential(session.credential)));
                write = writeRecord();
            }
            host.await(write);
            synchronized (this) {
                if (generation != gen) throw new AppError("sessionChanged", "the sign-in was abandoned", true);
                current = session;
                transition("sign-in-succeeded", "authenticated", "credentialsAccepted");
                return Json.map("account", session.account);
            }
        }

        private synchronized void signInFailed(long gen, String reason) {
            if (generation == gen && "signingIn".equals(state)) {
                transition("sign-in-failed", "signedOut", reason);
                prompt();
            }
        }

        Object switchAccount(String commandId, String email, String password) {
            if (!plausibleEmail(email)) throw new AppError("invalidInput", "Invalid email format", true);
            if (password == null || password.length() < 8) throw new AppError("invalidInput", "Password must be at least 8 characters", true);
            Host.Effect<Map<String, Object>> write;
            synchronized (this) {
                if ("authenticated".equals(state)) {
                    write = endSession("account-switch", "signingIn", "switchingAccount", true);
                } else if ("refreshing".equals(state)) {
                    write = endSession("switch-during-refresh", "signingIn", "switchingAccount", true);
                } else {
                    write = null;
                }
            }
            if (write == null) return signIn(commandId, email, password, false);
            host.await(write);
            kickRevocations();
            return signIn(commandId, email, password, true);
        }

        void signOut(String commandId) {
            Host.Effect<Map<String, Object>> write;
            synchronized (this) {
                String transition = "authenticated".equals(state) ? "sign-out"
                        : "refreshing".equals(state) ? "sign-out-during-refresh"
                        : "restoring".equals(state) ? "restore-sign-out"
                        : "signingIn".equals(state) ? "sign-in-cancelled" : null;
                if (transition == null) return;
                write = endSession(transition, "signedOut", "userSignedOut", true);
                prompt();
            }
            host.await(write);
            host.answerNow(commandId, null); // local state is cleared; the revocation does not hold the user
            kickRevocations();
        }

        /** Ends the session at once: one transition, the commands waiting on it failed, storage cleared in one write. */
        private Host.Effect<Map<String, Object>> endSession(String transition, String to, String reason, boolean revoke) {
            // The refresh token to revoke comes from the stored copy, never from the Credential: its lock may be
            // held by a refresh in flight.
            current = null;
            transition(transition, to, reason);
            for (Map.Entry<String, Long> command : inFlight.entrySet()) {
                if (command.getValue() < generation) {
                    host.answerNow(command.getKey(), Json.map("code", "sessionEnded", "message", "the session ended", "definite", true));
                }
            }
            if (revoke) {
                for (Object entry : credentials().values()) {
                    Object refreshToken = Json.asMap(entry).get("refreshToken");
                    if (refreshToken != null) revocations().add(refreshToken);
                }
            }
            credentials().clear();
            return writeRecord();
        }

        /** 400 invalid_grant from the token endpoint: the only answer that ends the session. */
        private void rejected(Session session) {
            Host.Effect<Map<String, Object>> write;
            synchronized (this) {
                if (current != session) return;
                if ("restoring".equals(state)) {
                    write = endSession("restore-failed", "signedOut", "invalidGrant", false);
                } else {
                    if ("authenticated".equals(state)) transition("refresh-started", "refreshing", "accessTokenRejected");
                    write = endSession("refresh-rejected", "signedOut", "invalidGrant", false);
                }
                prompt();
            }
            host.await(write);
        }

        private void refreshDeferred(Session session, String reason) {
            synchronized (this) {
                if (current == session && "refreshing".equals(state)) transition("refresh-deferred", "authenticated", reason);
            }
        }

        // ---- A screen fetches a resource through the Credential.

        Object fetch(String commandId, String resource) {
            Session session;
            long gen;
            synchronized (this) {
                if (!"authenticated".equals(state) && !"refreshing".equals(state)) {
                    throw new AppError("notAuthenticated", "signed out", true);
                }
                session = current;
                gen = generation;
                inFlight.put(commandId, gen);
            }
            try {
                HttpResponse response = session.requests.buildGetRequest(new GenericUrl(host.baseURL() + "/resources/" + resource)).execute();
                Map<String, Object> body = Json.object(response.parseAsString());
                synchronized (this) {
                    if (generation != gen) throw new AppError("sessionChanged", "the session changed", true);
                    Object contentId = body.get("contentId");
                    host.send(Json.map("type", "ui", "event", "content", "resource", resource, "account", session.account,
                            "generation", generation, "contentId", contentId));
                    return Json.map("resource", resource, "account", session.account, "contentId", contentId);
                }
            } catch (HttpResponseException refused) {
                synchronized (this) {
                    if (generation != gen) throw new AppError("sessionEnded", "the session ended", true);
                }
                if (refused.getStatusCode() == 401) throw new AppError("refreshUnavailable", "the token could not be refreshed", false);
                throw new AppError("serverError", "HTTP " + refused.getStatusCode(), true);
            } catch (IOException failure) {
                synchronized (this) {
                    if (generation != gen) throw new AppError("sessionEnded", "the session ended", true);
                }
                throw new AppError("transportFailure", "request failed", false);
            } finally {
                synchronized (this) {
                    inFlight.remove(commandId);
                }
            }
        }

        // ---- RFC 7009 revocation through the library's transport, queued in the secure-storage item.

        private void kickRevocations() {
            synchronized (this) {
                if (revoking || revocations().isEmpty()) return;
                revoking = true;
            }
            host.spawn("revocations", this::revokeAll);
        }

        private void revokeAll() {
            int failures = 0;
            try {
                while (true) {
                    String token;
                    synchronized (this) {
                        if (revocations().isEmpty()) return;
                        token = (String) revocations().get(0);
                    }
                    if (!isOnline()) return; // `online` kicks it again
                    try {
                        Map<String, Object> form = new LinkedHashMap<>();
                        form.put("token", token);
                        form.put("token_type_hint", "refresh_token");
                        form.put("client_id", CLIENT_ID);
                        HttpRequest request = transport.createRequestFactory(r -> plumb(r, admitted -> { }))
                                .buildPostRequest(new GenericUrl(host.baseURL() + "/oauth/revoke"), new UrlEncodedContent(form));
                        request.setThrowExceptionOnExecuteError(false);
                        request.execute().disconnect();
                    } catch (IOException failure) {
                        failures += 1;
                        if (failures > 6) return;
                        host.call(Json.map("type", "sleep", "seconds", (double) (2 << Math.min(failures - 1, 7))));
                        continue;
                    }
                    Host.Effect<Map<String, Object>> write;
                    synchronized (this) {
                        revocations().remove(token);
                        write = writeRecord();
                    }
                    host.await(write);
                }
            } finally {
                synchronized (this) {
                    revoking = false;
                }
            }
        }

        // ---- Storage, device and reporting.

        private static Map<String, Object> newRecord() {
            Map<String, Object> fresh = new LinkedHashMap<>();
            fresh.put("credentials", new LinkedHashMap<String, Object>());
            fresh.put("revocations", new ArrayList<Object>());
            return fresh;
        }

        private Map<String, Object> credentials() { return Json.asMap(record.computeIfAbsent("credentials", k -> new LinkedHashMap<String, Object>())); }

        @SuppressWarnings("unchecked")
        private List<Object> revocations() { return (List<Object>) record.computeIfAbsent("revocations", k -> new ArrayList<Object>()); }

        private static Map<String, Object> stored(StoredCredential credential) {
            return Json.map("accessToken", credential.getAccessToken(), "refreshToken", credential.getRefreshToken(),
                    "expirationTimeMilliseconds", credential.getExpirationTimeMilliseconds());
        }

        /** Sends the whole item in one write (called holding the monitor, so writes keep the order of decisions). */
        private Host.Effect<Map<String, Object>> writeRecord() {
            return host.effect(Json.map("type", "storage", "op", "set", "key", STORE, "value", Json.write(record),
                    "accessibility", "afterFirstUnlock"));
        }

        private synchronized boolean isOnline() { return online; }

        /** Waits for an `unlock` or `online`; false when the session changed meanwhile. */
        private boolean waitForDevice(long gen) {
            CompletableFuture<Map<String, Object>> waiter = new CompletableFuture<>();
            synchronized (this) {
                waitingForDevice.add(waiter);
            }
            host.await(waiter);
            synchronized (this) {
                return generation == gen;
            }
        }

        private void wakeDeviceWaiters() {
            List<CompletableFuture<Map<String, Object>>> woken;
            synchronized (this) {
                woken = new ArrayList<>(waitingForDevice);
                waitingForDevice.clear();
            }
            woken.forEach(waiter -> waiter.complete(new HashMap<>())); // on the command thread: counted, so no barrier slips in
        }

        private synchronized Map<String, Object> stateMap() { return Json.map("state", state); }

        private void transition(String id, String to, String reason) {
            String from = id == null ? null : state;
            if (id != null && (id.equals("restore-failed") || id.equals("refresh-rejected") || id.startsWith("sign-out")
                    || id.equals("sign-in-succeeded") || id.equals("account-switch") || id.equals("switch-during-refresh")
                    || id.equals("restore-sign-out") || id.equals("sign-in-cancelled"))) generation += 1;
            state = to;
            String account = current == null ? null : current.account;
            host.send(Json.map("type", "transition", "transition", id, "from", from, "to", to,
                    "account", "signedOut".equals(to) || "signingIn".equals(to) ? null : account, "generation", generation, "reason", reason));
            host.send(Json.map("type", "log", "level", "info", "message", "transition " + id + " -> " + to));
        }

        private void prompt() {
            host.send(Json.map("type", "ui", "event", "signInPrompt"));
        }
    }

    /** What the app decides about a request before it goes out, and hears when its connection fails. */
    interface Guard {
        void admit(HttpRequest request) throws IOException;

        default void transportFailed(HttpRequest request) {}
    }

    /**
     * Hooks one request the library built: the cause header, the app's guard and the kit's counting, composed
     * with the handlers the library installed (Credential#initialize sets itself as interceptor and
     * unsuccessful-response handler; this runs after it and keeps both). The attempt is counted started just
     * before the transport sends it (after Credential#intercept, which may refresh first) and finished in the
     * unsuccessful-response handler (before Credential's), the I/O-exception handler or the response
     * interceptor, whichever comes first.
     */
    static void plumb(HttpRequest request, Guard guard) {
        String command = host.cause();
        if (command != null) request.getHeaders().set("X-Conformance-Cause", command);
        HttpExecuteInterceptor library = request.getInterceptor();
        HttpUnsuccessfulResponseHandler handler = request.getUnsuccessfulResponseHandler();
        Host.Exchange[] inFlight = {null};
        request.setInterceptor(r -> {
            if (library != null) library.intercept(r);
            if (!host.isCurrent()) throw new IOException("the case this request served has ended");
            guard.admit(r);
            try {
                inFlight[0] = host.startExchange(true, 0);
            } catch (StaleSession ended) {
                throw new IOException("the case this request served has ended");
            }
        });
        request.setUnsuccessfulResponseHandler((r, response, retry) -> {
            finished(inFlight, true);
            return handler != null && handler.handleResponse(r, response, retry);
        });
        request.setIOExceptionHandler((r, retry) -> {
            finished(inFlight, false);
            guard.transportFailed(r);
            return false;
        });
        request.setResponseInterceptor(response -> finished(inFlight, true));
    }

    private static void finished(Host.Exchange[] inFlight, boolean responseRead) {
        Host.Exchange exchange = inFlight[0];
        inFlight[0] = null;
        if (exchange != null) exchange.finished(responseRead);
    }

    public static void main(String[] arguments) {
        // One App per case: the kit makes a new one at every `reset`, as a new process would.
        host.implementation("google-oauth-client-java", "1.34.1", "Java",
                "jvm-" + System.getProperty("java.version") + " google-http-client-1.42.0").loopback(true).serve(App::new);
    }
}
