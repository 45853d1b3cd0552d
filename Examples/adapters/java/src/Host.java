import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import okhttp3.Interceptor;
import okhttp3.Request;
import okhttp3.Response;

/**
 * Protocol v1 host for a blocking Java client whose HTTP is real (loopback mode). Commands run on threads of
 * their own, as app code does on Android; storage, preferences, clock, transitions, UI and logs are protocol
 * messages; HTTP goes through OkHttp to the runner's server on 127.0.0.1.
 *
 * Determinism: the host counts the client threads that can run ("busy"). A thread stops counting while it
 * waits for a reply from the runner or for an HTTP response, and counts again when that arrives. A barrier is
 * answered once no thread is busy and every response the runner sent (httpAnswered) has arrived, with the
 * number of requests started (httpStarted), counted by a network interceptor around every attempt OkHttp
 * makes (its own silent retries included). Client code must not hold a Java lock while it waits for the
 * runner (a thread blocked on that lock would count as busy forever).
 *
 * Reset (the `reset` capability): the runner keeps this process across cases and sends `reset` between them.
 * All that a case counts lives in a {@link Session}; `reset` starts a new one. Every client thread belongs to
 * the session it was started in (OkHttp runs interceptors and the authenticator on the calling thread), so a
 * thread left from the previous case (blocked in OkHttp, or woken by the reset) updates only its own session's
 * counters, sends nothing, waits for no reply and starts no request.
 */
final class Host {
    /** What one case (one `hello`) counts. */
    private static final class Session {
        final Map<String, CompletableFuture<Map<String, Object>>> waiting = new HashMap<>();
        /** The deadline `sleep`s of attempts in flight, by the sleep's effect id (--request-timeout). */
        final Map<String, Attempt> deadlines = new HashMap<>();
        int nextEffect;
        int nextTag;
        int busy;
        int started;
        int finished;
    }

    /** One network attempt with a deadline: its tag (X-Conformance-Request), its deadline's sleep, its call. */
    private static final class Attempt {
        final String tag;
        final String sleep;
        final okhttp3.Call call;
        /** Ended (the response headers came, or the connection failed) before the deadline: guarded by the lock. */
        boolean ended;
        /** Given up on when the deadline passed first: guarded by the lock. */
        boolean abandoned;

        Attempt(String tag, String sleep, okhttp3.Call call) {
            this.tag = tag;
            this.sleep = sleep;
            this.call = call;
        }
    }

    /** What a thread of a previous session gets when it tries to reach the runner. */
    static final class StaleSession extends RuntimeException {
        StaleSession() { super("the case this thread served has ended"); }
    }

    private final Object lock = new Object();
    private Session session = new Session();
    private final ThreadLocal<Session> owner = new ThreadLocal<>();
    private final PrintStream out;
    volatile double wall;
    volatile double monotonic;
    volatile String baseURL;
    private final ThreadLocal<String> cause = new ThreadLocal<>();

    Host() {
        out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    }

    /** The session of the calling thread: its own for a client thread, the current one for the main thread. */
    private Session mine() {
        Session own = owner.get();
        return own == null ? session : own;
    }

    /** Sends an event; one of a previous session's thread is dropped. */
    void send(Map<String, Object> message) {
        synchronized (lock) {
            if (mine() != session) return;
            write(message);
        }
    }

    private void write(Map<String, Object> message) {
        synchronized (out) {
            out.print(Json.write(message));
            out.print('\n');
            out.flush();
        }
    }

    /** An effect the runner answers: blocks the calling client thread until the reply (it is not busy meanwhile). */
    Map<String, Object> effect(Map<String, Object> message) {
        CompletableFuture<Map<String, Object>> reply = new CompletableFuture<>();
        synchronized (lock) {
            Session mine = mine();
            if (mine != session) throw new StaleSession();
            mine.nextEffect += 1;
            String id = "e" + mine.nextEffect;
            message.put("id", id);
            mine.waiting.put(id, reply);
            write(message);
            mine.busy -= 1;
            lock.notifyAll();
        }
        try {
            return reply.join();
        } catch (java.util.concurrent.CompletionException reset) {
            throw new StaleSession();
        }
    }

    /** The command the current thread serves, for the X-Conformance-Cause header. */
    String cause() { return cause.get(); }

    /** An application interceptor: a request of a previous session's thread fails before it connects. */
    Interceptor currentSessionOnly() {
        return chain -> {
            synchronized (lock) {
                if (mine() != session) throw new java.io.IOException("the case this request served has ended");
            }
            return chain.proceed(chain.request());
        };
    }

    /**
     * Counts every network attempt: started before it goes out, finished when its response headers arrive.
     *
     * With a request timeout (seconds of the runner's virtual clock; 0: none), each attempt also gets a deadline,
     * as OkHttp's own connect, read and write timeouts apply to each attempt (docs/porting-guide.md, Real-time
     * waits): the attempt is tagged (X-Conformance-Request) and a `sleep` of that length is sent with it. When the
     * sleep's reply comes first, the reader thread gives up on the attempt ({@link #deadlinePassed}); when the
     * attempt ends first, the sleep is abandoned. Per attempt, not per call: a follow-up after the authenticator
     * or a silent retry is another request to the server, with a tag and a deadline of its own.
     */
    Interceptor countingInterceptor(double requestTimeout) {
        return chain -> {
            Session mine;
            Request request = chain.request();
            Attempt attempt = null;
            synchronized (lock) {
                mine = mine();
                // A retry OkHttp makes on its own for a call of an ended case (its connection closed at a kill
                // played as a reset) must not reach the server the next instance is served at: a dead process
                // sends nothing.
                if (mine != session) throw new java.io.IOException("the case this request served has ended");
                if (requestTimeout > 0) {
                    mine.nextTag += 1;
                    mine.nextEffect += 1;
                    attempt = new Attempt("r" + mine.nextTag, "e" + mine.nextEffect, chain.call());
                    request = request.newBuilder().header("X-Conformance-Request", attempt.tag).build();
                    mine.deadlines.put(attempt.sleep, attempt);
                    write(Json.map("type", "sleep", "id", attempt.sleep, "seconds", requestTimeout));
                }
                mine.started += 1;
                mine.busy -= 1;
                lock.notifyAll();
            }
            boolean answered = false;
            try {
                Response response = chain.proceed(request);
                answered = true;
                return response;
            } catch (java.io.IOException error) {
                boolean abandoned;
                synchronized (lock) {
                    abandoned = attempt != null && attempt.abandoned;
                }
                // What OkHttp's own timeout throws: the client cannot tell the two apart, nor should it.
                if (abandoned) throw new java.net.SocketTimeoutException("timeout (the request's deadline passed)");
                throw error;
            } finally {
                synchronized (lock) {
                    if (attempt == null || !attempt.abandoned) {
                        mine.finished += 1;
                        mine.busy += 1; // an abandoned attempt's thread was counted runnable when it was given up on
                    } else if (answered) {
                        mine.finished += 1; // the response crossed the abandon: the runner counted it answered
                    }
                    if (attempt != null && !attempt.abandoned) {
                        attempt.ended = true;
                        if (mine.deadlines.remove(attempt.sleep) != null && mine == session) {
                            write(Json.map("type", "abandon", "id", attempt.sleep, "reason", "answered"));
                        }
                    }
                    lock.notifyAll();
                }
            }
        };
    }

    /**
     * The reply to a deadline's sleep, on the reader thread: the attempt is given up on. The runner is told
     * (`abandon` with its tag; it never answers it, so it is not counted finished), the waiting thread is counted
     * runnable before it wakes, and the call is cancelled, which wakes it with an IOException. False when the
     * reply is not a deadline's.
     */
    private boolean deadlinePassed(String id) {
        Attempt attempt;
        synchronized (lock) {
            attempt = session.deadlines.remove(id);
            if (attempt == null) return false;
            if (attempt.ended) return true;
            attempt.abandoned = true;
            session.busy += 1;
            write(Json.map("type", "abandon", "id", attempt.tag, "reason", "timeout"));
        }
        attempt.call.cancel();
        return true;
    }

    /** Reads runner messages until stdin ends. */
    void run(Map<String, Object> hello, Function<Map<String, Object>, Object> perform,
             java.util.function.Consumer<Map<String, Object>> welcome, Runnable reset) throws IOException {
        send(hello);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            Map<String, Object> message = Json.object(line);
            String type = (String) message.get("type");
            switch (type) {
                case "welcome": {
                    setClock(asMap(message.get("clock")));
                    baseURL = (String) asMap(message.get("http")).get("baseURL");
                    welcome.accept(message);
                    break;
                }
                case "error":
                    System.err.println("adapter: the runner refused us: " + message.get("code"));
                    System.exit(2);
                    break;
                case "clock":
                    setClock(message);
                    break;
                case "reset": {
                    // A new session, as a new process would have. Threads waiting for a reply of the old one wake
                    // up with StaleSession and end; the client object is replaced by the caller's `reset`.
                    Session old;
                    synchronized (lock) {
                        old = session;
                        session = new Session();
                    }
                    old.waiting.values().forEach(reply -> reply.completeExceptionally(new StaleSession()));
                    reset.run();
                    send(hello);
                    break;
                }
                case "reply": {
                    if (deadlinePassed((String) message.get("id"))) break;
                    CompletableFuture<Map<String, Object>> reply;
                    synchronized (lock) {
                        reply = session.waiting.remove((String) message.get("id"));
                        if (reply != null) session.busy += 1;
                    }
                    if (reply != null) reply.complete(message);
                    break;
                }
                case "command":
                    startCommand(message, perform);
                    break;
                case "barrier": {
                    long answered = message.get("httpAnswered") == null ? 0 : ((Number) message.get("httpAnswered")).longValue();
                    synchronized (lock) {
                        while (session.busy > 0 || session.finished < answered) {
                            try {
                                lock.wait();
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                                return;
                            }
                        }
                        write(Json.map("type", "barrier", "id", message.get("id"), "httpStarted", (long) session.started));
                    }
                    break;
                }
                default:
                    throw new IllegalArgumentException("unknown runner message type " + type);
            }
        }
        System.exit(0);
    }

    private void startCommand(Map<String, Object> command, Function<Map<String, Object>, Object> perform) {
        Session mine;
        synchronized (lock) {
            mine = session;
            mine.busy += 1;
        }
        Thread thread = new Thread(() -> {
            owner.set(mine);
            cause.set((String) command.get("id"));
            Map<String, Object> result = Json.map("type", "result", "id", command.get("id"));
            try {
                Object content = perform.apply(command);
                result.put("outcome", "ok");
                if (content != null) result.put("content", content);
            } catch (AppError error) {
                result.put("outcome", "error");
                result.put("error", Json.map("code", error.code, "message", error.getMessage(), "definite", error.definite));
            } catch (RuntimeException error) {
                result.put("outcome", "error");
                result.put("error", Json.map("code", "internalError", "message", error.getClass().getSimpleName(), "definite", true));
            }
            synchronized (lock) {
                if (mine == session) write(result);
                mine.busy -= 1;
                lock.notifyAll();
            }
        }, "command-" + command.get("id"));
        thread.setDaemon(true);
        thread.start();
    }

    private void setClock(Map<String, Object> clock) {
        wall = ((Number) clock.get("wall")).doubleValue();
        monotonic = ((Number) clock.get("monotonic")).doubleValue();
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> asMap(Object value) { return value == null ? new HashMap<>() : (Map<String, Object>) value; }

    /** A command's failure: a stable code and whether the outcome is known. */
    static final class AppError extends RuntimeException {
        final String code;
        final boolean definite;

        AppError(String code, String message, boolean definite) {
            super(message);
            this.code = code;
            this.definite = definite;
        }
    }
}

