import java.io.IOException;
import java.util.HashMap;
import java.util.Map;

import okhttp3.Authenticator;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;
import okhttp3.Route;
import org.sessionconformance.kit.AppError;
import org.sessionconformance.kit.Client;
import org.sessionconformance.kit.Host;
import org.sessionconformance.kit.Json;
import org.sessionconformance.kit.okhttp.ConformanceOkHttp;

/**
 * The Android code of Specs/sources/003_a7334a1b43f9a998.txt on real OkHttp 3: its SecureTokenStore, its
 * TokenAuthenticator (ported line by line from Kotlin), its LoginUseCase, its logout and its session check
 * (`isAuthenticated = tokenStore.getAccessToken() != null`), over real HTTP to the runner's loopback server.
 * The suite shows where it contradicts 000 and 001 (expected.yaml beside this file says which requirements
 * fail and why). Lines marked "reporting" are the adapter's: they tell the runner which state the app is in;
 * 003 has no explicit state machine. The protocol (threads, barriers, effects, loopback counting, reset) is
 * the JVM kit's (kits/jvm): this file is the client and its glue.
 */
public final class Adapter {
    static final Host host = new Host();
    static final MediaType JSON = MediaType.get("application/json; charset=utf-8");

    // ---- 003: TokenStore / SecureTokenStore (EncryptedSharedPreferences).
    // The preferences file "secure_prefs" is one secure-storage item holding both keys: one edit {} is one
    // write, readable after first unlock (Android's credential-encrypted storage).

    interface TokenStore {
        String getAccessToken();
        String getRefreshToken();
        void save(String accessToken, String refreshToken);
        void clear();
    }

    static final class SecureTokenStore implements TokenStore {
        private static final String KEY_ACCESS_TOKEN = "access_token";
        private static final String KEY_REFRESH_TOKEN = "refresh_token";
        private volatile Map<String, Object> prefs;

        /** `by lazy`: the file is read on first use. */
        private Map<String, Object> prefs() {
            Map<String, Object> loaded = prefs;
            if (loaded == null) {
                Map<String, Object> reply = host.call(Json.map("type", "storage", "op", "get", "key", "secure_prefs"));
                Object value = reply.get("value");
                loaded = reply.containsKey("error") || value == null ? new HashMap<>() : Json.object((String) value);
                prefs = loaded;
            }
            return loaded;
        }

        @Override public String getAccessToken() { return (String) prefs().get(KEY_ACCESS_TOKEN); }

        @Override public String getRefreshToken() { return (String) prefs().get(KEY_REFRESH_TOKEN); }

        @Override public void save(String accessToken, String refreshToken) {
            Map<String, Object> edited = new HashMap<>(prefs());
            edited.put(KEY_ACCESS_TOKEN, accessToken);
            edited.put(KEY_REFRESH_TOKEN, refreshToken);
            prefs = edited;
            host.call(Json.map("type", "storage", "op", "set", "key", "secure_prefs", "value", Json.write(edited),
                    "accessibility", "afterFirstUnlock"));
        }

        @Override public void clear() {
            prefs = new HashMap<>();
            host.call(Json.map("type", "storage", "op", "delete", "key", "secure_prefs"));
        }
    }

    // ---- The AuthApi: "backed by a separate OkHttpClient without this authenticator" (Retrofit-like:
    // a non-2xx answer throws).

    static final class TokenPair {
        final String accessToken;
        final String refreshToken;
        final String accountId;

        TokenPair(String accessToken, String refreshToken, String accountId) {
            this.accessToken = accessToken;
            this.refreshToken = refreshToken;
            this.accountId = accountId;
        }
    }

    static final class HttpException extends RuntimeException {
        final int code;

        HttpException(int code) {
            super("HTTP " + code);
            this.code = code;
        }
    }

    static final class AuthApi {
        private final OkHttpClient client;

        AuthApi(OkHttpClient client) { this.client = client; }

        TokenPair refresh(String refreshToken) throws IOException {
            return tokens(post("/auth/refresh", Json.map("refresh_token", refreshToken)));
        }

        TokenPair login(String email, String password) throws IOException {
            return tokens(post("/auth/login", Json.map("email", email, "password", password)));
        }

        private Map<String, Object> post(String path, Map<String, Object> body) throws IOException {
            Request request = new Request.Builder().url(host.baseURL() + path).post(RequestBody.create(JSON, Json.write(body))).build();
            try (Response response = client.newCall(request).execute()) {
                if (!response.isSuccessful()) throw new HttpException(response.code());
                return Json.object(response.body().string());
            }
        }

        private static TokenPair tokens(Map<String, Object> body) {
            return new TokenPair((String) body.get("access_token"), (String) body.get("refresh_token"), (String) body.get("account_id"));
        }
    }

    // ---- 003: TokenAuthenticator, ported from Kotlin.

    static final class TokenAuthenticator implements Authenticator {
        private final TokenStore tokenStore;
        private final AuthApi authApi;
        private final App app; // for reporting: the app this authenticator belongs to, not the one after a reset

        TokenAuthenticator(TokenStore tokenStore, AuthApi authApi, App app) {
            this.tokenStore = tokenStore;
            this.authApi = authApi;
            this.app = app;
        }

        @Override
        public Request authenticate(Route route, Response response) {
            // Avoid infinite loops
            if (responseCount(response) >= 2) return null;

            String header = response.request().header("Authorization");
            String requestAccessToken = header == null ? null : header.replaceFirst("^Bearer ", "");

            // If another request already refreshed the token, retry with the latest one.
            String latestAccessToken = tokenStore.getAccessToken();
            if (latestAccessToken != null && !latestAccessToken.equals(requestAccessToken)) {
                return response.request().newBuilder()
                        .header("Authorization", "Bearer " + latestAccessToken)
                        .build();
            }

            // Refresh token (use an AuthApi backed by a separate OkHttpClient without this authenticator)
            String refreshToken = tokenStore.getRefreshToken();
            if (refreshToken == null) return null;

            app.refreshStarted(); // reporting
            TokenPair tokenPair;
            try {
                tokenPair = authApi.refresh(refreshToken);
            } catch (Exception e) { // runCatching { ... }.getOrElse { tokenStore.clear(); return null }
                tokenStore.clear();
                app.refreshFailed(); // reporting: "clear tokens and navigate to login on refresh failure"
                return null;
            }

            tokenStore.save(tokenPair.accessToken, tokenPair.refreshToken);
            app.refreshSucceeded(); // reporting

            return response.request().newBuilder()
                    .header("Authorization", "Bearer " + tokenPair.accessToken)
                    .build();
        }

        private int responseCount(Response response) {
            int count = 1;
            Response prior = response.priorResponse();
            while (prior != null) {
                count++;
                prior = prior.priorResponse();
            }
            return count;
        }
    }

    // ---- The app: LoginUseCase, logout, the session check, and screens that fetch resources.

    static final class App implements Client {
        private final TokenStore tokenStore = new SecureTokenStore();
        private OkHttpClient client;
        private AuthApi authApi;
        private String state = "restoring";
        private int generation = 1;
        private volatile String account;

        /** Cancels every call still in flight (a new process has none) and drops the pooled connections. */
        @Override public void close() {
            if (client == null) return;
            client.dispatcher().cancelAll(); // the AuthApi's client shares this dispatcher and connection pool
            client.connectionPool().evictAll();
        }

        @Override public void welcome(Map<String, Object> welcome) {
            // The kit's interceptors: X-Conformance-Cause, no request from an ended case, every attempt counted
            // (with --request-timeout, a deadline per attempt on the runner's clock; OkHttp's timeouts off).
            OkHttpClient base = ConformanceOkHttp.install(host, new OkHttpClient.Builder()).build();
            authApi = new AuthApi(base);
            client = base.newBuilder()
                    .addInterceptor(chain -> { // the usual AuthInterceptor: the stored access token on every request
                        String token = tokenStore.getAccessToken();
                        Request request = chain.request();
                        return chain.proceed(token == null ? request : request.newBuilder().header("Authorization", "Bearer " + token).build());
                    })
                    .authenticator(new TokenAuthenticator(tokenStore, authApi, this))
                    .build();
        }

        @Override public Object perform(Map<String, Object> command) {
            switch ((String) command.get("command")) {
                case "launch": return launch();
                case "signIn": return signIn((String) command.get("email"), (String) command.get("password"), false);
                case "switchAccount": return switchAccount((String) command.get("email"), (String) command.get("password"));
                case "signOut": logout(); return null;
                case "request": return fetch((String) command.get("resource"));
                default: return null;
            }
        }

        /** 003's session check: a token in storage means authenticated. */
        Object launch() {
            transition(null, "restoring", "launch");
            boolean isAuthenticated = tokenStore.getAccessToken() != null;
            if (isAuthenticated) {
                transition("restore-validated", "authenticated", "tokenPresent");
            } else {
                transition("restore-failed", "signedOut", "noStoredSession");
                prompt();
            }
            return Json.map("state", state);
        }

        /** 003's LoginUseCase (Android) and AuthRepository. */
        Object signIn(String email, String password, boolean switching) {
            // Validate inputs
            if (email == null || !email.contains("@")) throw new AppError("invalidInput", "Invalid email format", true);
            if (password == null || password.length() < 8) throw new AppError("invalidInput", "Password must be at least 8 characters", true);
            if (!switching) transition("sign-in-started", "signingIn", "userSignIn");
            TokenPair pair;
            try {
                pair = authApi.login(email, password);
            } catch (HttpException e) {
                transition("sign-in-failed", "signedOut", "invalidCredentials");
                throw new AppError("invalidCredentials", "sign-in failed", true);
            } catch (IOException e) {
                transition("sign-in-failed", "signedOut", "transportFailure");
                throw new AppError("transportFailure", "sign-in failed", false);
            }
            tokenStore.save(pair.accessToken, pair.refreshToken);
            getCurrentUser();
            account = pair.accountId;
            transition("sign-in-succeeded", "authenticated", "credentialsAccepted");
            return Json.map("account", account);
        }

        Object switchAccount(String email, String password) {
            if (!"authenticated".equals(state) && !"refreshing".equals(state)) return signIn(email, password, false);
            if ("refreshing".equals(state)) {
                transition("sign-out-during-refresh", "signedOut", "switchingAccount");
                transition("sign-in-started", "signingIn", "switchingAccount");
            } else {
                transition("account-switch", "signingIn", "switchingAccount");
            }
            tokenStore.clear(); // 003's logout(), without the navigation
            return signIn(email, password, true);
        }

        /** 003: logout() { tokenStore.clear() // Navigate to login }. */
        void logout() {
            if (!"authenticated".equals(state) && !"refreshing".equals(state)) return;
            transition("authenticated".equals(state) ? "sign-out" : "sign-out-during-refresh", "signedOut", "userSignedOut");
            tokenStore.clear();
            prompt();
        }

        private void getCurrentUser() {
            Request request = new Request.Builder().url(host.baseURL() + "/me").build();
            try (Response response = client.newCall(request).execute()) {
                if (!response.isSuccessful()) throw new AppError("unauthorized", "profile refused", true);
            } catch (IOException e) {
                throw new AppError("transportFailure", "profile failed", false);
            }
        }

        /** A screen fetches a resource and shows it. */
        Object fetch(String resource) {
            Request request = new Request.Builder().url(host.baseURL() + "/resources/" + resource).build();
            try (Response response = client.newCall(request).execute()) {
                if (response.code() == 401) throw new AppError("unauthorized", "refused", true);
                if (!response.isSuccessful()) throw new AppError("serverError", "HTTP " + response.code(), true);
                Map<String, Object> body = Json.object(response.body().string());
                Object contentId = body.get("contentId");
                host.send(Json.map("type", "ui", "event", "content", "resource", resource, "account", account,
                        "generation", (long) generation, "contentId", contentId));
                return Json.map("resource", resource, "account", account, "contentId", contentId);
            } catch (IOException e) {
                throw new AppError("transportFailure", "request failed", false);
            }
        }

        // ---- reporting: the state the app is in, as transitions of Specs/state-machine.yaml.

        synchronized void refreshStarted() {
            if ("authenticated".equals(state)) transition("refresh-started", "refreshing", "accessTokenRejected");
        }

        synchronized void refreshSucceeded() {
            if ("refreshing".equals(state)) transition("refresh-succeeded", "authenticated", "tokensRotated");
        }

        synchronized void refreshFailed() {
            if ("authenticated".equals(state)) transition("refresh-started", "refreshing", "accessTokenRejected");
            if ("refreshing".equals(state)) {
                transition("refresh-rejected", "signedOut", "refreshFailed");
                prompt();
            }
        }

        private synchronized void transition(String id, String to, String reason) {
            String from = id == null ? null : state;
            if (id != null && (id.equals("restore-failed") || id.equals("refresh-rejected") || id.startsWith("sign-out")
                    || id.equals("sign-in-succeeded") || id.equals("account-switch"))) generation += 1;
            state = to;
            host.send(Json.map("type", "transition", "transition", id, "from", from, "to", to,
                    "account", "signedOut".equals(to) || "signingIn".equals(to) ? null : account, "generation", (long) generation, "reason", reason));
            host.send(Json.map("type", "log", "level", "info", "message", "transition " + id + " -> " + to));
        }

        private void prompt() {
            host.send(Json.map("type", "ui", "event", "signInPrompt"));
        }
    }

    /**
     * `--request-timeout SECONDS`: a deadline on every request attempt, on the runner's virtual clock, in place of
     * OkHttp's real-time timeouts (docs/porting-guide.md, Real-time waits). Without it: OkHttp's own (10 s, real time).
     */
    public static void main(String[] arguments) {
        double requestTimeout = 0;
        for (int index = 0; index < arguments.length; index++) {
            if (arguments[index].equals("--request-timeout") && index + 1 < arguments.length) {
                try {
                    requestTimeout = Double.parseDouble(arguments[++index]);
                } catch (NumberFormatException e) {
                    requestTimeout = -1;
                }
                if (!(requestTimeout > 0) || Double.isInfinite(requestTimeout)) {
                    System.err.println("adapter: --request-timeout wants a positive number of seconds, not '" + arguments[index] + "'");
                    System.exit(2);
                }
            } else {
                System.err.println("adapter: unknown argument '" + arguments[index] + "' (usage: run.sh [--request-timeout SECONDS])");
                System.exit(2);
            }
        }
        // One App per case: the kit makes a new one at every `reset`, as a new process would.
        host.implementation("okhttp-token-authenticator", "1.0.0", "Java", "jvm-" + System.getProperty("java.version") + " okhttp-3.13")
                .loopback(true).requestTimeout(requestTimeout).serve(App::new);
    }
}
