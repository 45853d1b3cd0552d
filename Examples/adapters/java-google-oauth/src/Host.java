import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import com.google.api.client.http.HttpExecuteInterceptor;
import com.google.api.client.http.HttpRequest;
import com.google.api.client.http.HttpUnsuccessfulResponseHandler;

/**
 * Protocol v1 host for a blocking Java client on google-http-client (loopback mode). Commands run on threads of
 * their own; storage, clock, transitions, UI and logs are protocol messages; HTTP goes through the library's
 * transport (any HttpTransport: the hooks are google-http-client's) to the runner's server on 127.0.0.1.
 *
 * Determinism: a barrier is answered once every client thread is idle and every response the runner sent
 * (httpAnswered) has arrived, with the number of requests started (httpStarted). A thread is idle while it
 * waits for the runner (an effect's reply, a wake-up) or for an HTTP response, or while it is parked on a lock
 * whose owner is idle. The last rule is what google-oauth-client needs: `Credential` holds its ReentrantLock
 * across the refresh request, so every other request that got a 401 (or starts meanwhile) parks on that lock
 * until the refresh's response arrives; those threads cannot run, though they never told us so. The owner of
 * a parked thread's lock is read from the JVM (ThreadMXBean), never from the library's fields, and a lock
 * released but not yet taken has no owner, so its waiter counts as runnable.
 *
 * Counting: `plumb` adds to every request the library builds (resource requests through `Credential`, and the
 * token requests, whose initializer the library calls first) an execute interceptor that runs after the
 * library's own (Credential#intercept, which may refresh first), counting the attempt started just before the
 * transport sends it; the attempt finishes in the unsuccessful-response handler (before Credential's), the
 * I/O-exception handler or the response interceptor, whichever comes first.
 *
 * Reset: as in ../java/src/Host.java, each case is a Session and a thread of a previous one is inert.
 */
final class Host {
    /** What one case (one `hello`) counts. */
    private static final class Session {
        final Map<String, Waiter> waiting = new HashMap<>();
        final Set<Thread> threads = new HashSet<>();
        final Set<Thread> idle = new HashSet<>();
        final Set<String> answered = new HashSet<>();
        int nextEffect;
        int started;
        int finished;
    }

    /** A client thread waiting for something only the runner (or another command) can give it. */
    static final class Waiter {
        final Thread thread = Thread.currentThread();
        final CompletableFuture<Map<String, Object>> reply = new CompletableFuture<>();
        private Session session;
        private boolean woken;
    }

    static final class StaleSession extends RuntimeException {
        StaleSession() { super("the case this thread served has ended"); }
    }

    /** What the app decides about a request before it goes out, and hears when its connection fails. */
    interface Guard {
        void admit(HttpRequest request) throws IOException;

        default void transportFailed(HttpRequest request) {}
    }

    private final Object lock = new Object();
    private Session session = new Session();
    private final ThreadLocal<Session> owner = new ThreadLocal<>();
    private final ThreadLocal<String> cause = new ThreadLocal<>();
    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final PrintStream out;
    volatile double wall;
    volatile double monotonic;
    volatile String baseURL;

    Host() {
        out = new PrintStream(new java.io.FileOutputStream(java.io.FileDescriptor.out), false, StandardCharsets.UTF_8);
    }

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

    /** An effect the runner answers: blocks the calling thread (idle meanwhile) until the reply. */
    Map<String, Object> effect(Map<String, Object> message) {
        return await(sendEffect(message));
    }

    /**
     * Sends an effect without waiting: the caller may hold its own monitor while the effect is sent (so the
     * order of two writes is the order of the decisions that made them) and `await` the reply after leaving it.
     */
    Waiter sendEffect(Map<String, Object> message) {
        Waiter waiter = new Waiter();
        synchronized (lock) {
            Session mine = mine();
            if (mine != session) throw new StaleSession();
            mine.nextEffect += 1;
            String id = "e" + mine.nextEffect;
            message.put("id", id);
            mine.waiting.put(id, waiter);
            waiter.session = mine;
            write(message);
        }
        return waiter;
    }

    /** A wait for another command (an unlock, going online): the thread is idle until `wake`. */
    Waiter waiter() {
        Waiter waiter = new Waiter();
        synchronized (lock) {
            waiter.session = mine();
        }
        return waiter;
    }

    Map<String, Object> await(Waiter waiter) {
        synchronized (lock) {
            if (waiter.session != session) throw new StaleSession();
            if (!waiter.woken) waiter.session.idle.add(waiter.thread);
            lock.notifyAll();
        }
        return join(waiter);
    }

    /** Wakes a waiter: it counts as running again before it is resumed, so no barrier is answered in between. */
    void wake(Waiter waiter) {
        synchronized (lock) {
            if (waiter.woken) return;
            waiter.woken = true;
            waiter.session.idle.remove(waiter.thread);
        }
        waiter.reply.complete(new HashMap<>());
    }

    private Map<String, Object> join(Waiter waiter) {
        try {
            return waiter.reply.join();
        } catch (java.util.concurrent.CompletionException reset) {
            throw new StaleSession();
        }
    }

    /** The command the current thread serves, for the X-Conformance-Cause header. */
    String cause() { return cause.get(); }

    /**
     * Hooks one request the library built: cause header, the app's guard and the counting, composed with the
     * handlers the library installed (Credential#initialize sets itself as interceptor and unsuccessful-response
     * handler; this runs after it and keeps both).
     */
    void plumb(HttpRequest request, Guard guard) {
        String command = cause();
        if (command != null) request.getHeaders().set("X-Conformance-Cause", command);
        HttpExecuteInterceptor library = request.getInterceptor();
        HttpUnsuccessfulResponseHandler handler = request.getUnsuccessfulResponseHandler();
        boolean[] inFlight = {false};
        request.setInterceptor(r -> {
            if (library != null) library.intercept(r);
            synchronized (lock) {
                if (mine() != session) throw new IOException("the case this request served has ended");
            }
            guard.admit(r);
            started(inFlight);
        });
        request.setUnsuccessfulResponseHandler((r, response, retry) -> {
            finished(inFlight);
            return handler != null && handler.handleResponse(r, response, retry);
        });
        request.setIOExceptionHandler((r, retry) -> {
            finished(inFlight);
            guard.transportFailed(r);
            return false;
        });
        request.setResponseInterceptor(response -> finished(inFlight));
    }

    private void started(boolean[] inFlight) {
        synchronized (lock) {
            Session mine = mine();
            mine.started += 1;
            mine.idle.add(Thread.currentThread());
            inFlight[0] = true;
            lock.notifyAll();
        }
    }

    private void finished(boolean[] inFlight) {
        synchronized (lock) {
            if (!inFlight[0]) return;
            inFlight[0] = false;
            Session mine = mine();
            mine.finished += 1;
            mine.idle.remove(Thread.currentThread());
            lock.notifyAll();
        }
    }

    /** Answers a command now (a session end fails the commands waiting on it); its thread's own answer is dropped. */
    void answerNow(String id, Map<String, Object> error) {
        synchronized (lock) {
            Session mine = mine();
            if (mine != session || !mine.answered.add(id)) return;
            Map<String, Object> result = Json.map("type", "result", "id", id);
            if (error == null) {
                result.put("outcome", "ok");
            } else {
                result.put("outcome", "error");
                result.put("error", error);
            }
            write(result);
        }
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
                case "welcome":
                    setClock(asMap(message.get("clock")));
                    baseURL = (String) asMap(message.get("http")).get("baseURL");
                    welcome.accept(message);
                    break;
                case "error":
                    System.err.println("adapter: the runner refused us: " + message.get("code"));
                    System.exit(2);
                    break;
                case "clock":
                    setClock(message);
                    break;
                case "reset": {
                    Session old;
                    synchronized (lock) {
                        old = session;
                        session = new Session();
                    }
                    old.waiting.values().forEach(w -> w.reply.completeExceptionally(new StaleSession()));
                    reset.run();
                    send(hello);
                    break;
                }
                case "reply": {
                    Waiter waiter;
                    synchronized (lock) {
                        waiter = session.waiting.remove((String) message.get("id"));
                        if (waiter != null) {
                            waiter.woken = true;
                            session.idle.remove(waiter.thread);
                        }
                    }
                    if (waiter != null) waiter.reply.complete(message);
                    break;
                }
                case "command":
                    startCommand(message, perform);
                    break;
                case "barrier":
                    answerBarrier(message);
                    break;
                default:
                    throw new IllegalArgumentException("unknown runner message type " + type);
            }
        }
        System.exit(0);
    }

    private void answerBarrier(Map<String, Object> message) {
        long answered = message.get("httpAnswered") == null ? 0 : ((Number) message.get("httpAnswered")).longValue();
        synchronized (lock) {
            // Polled: a thread parking on a library lock tells nobody, so idleness is re-read, not notified.
            while (session.finished < answered || !allIdle(session)) {
                try {
                    lock.wait(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            write(Json.map("type", "barrier", "id", message.get("id"), "httpStarted", (long) session.started));
        }
    }

    /**
     * Every thread waits for the runner, or is parked on a lock whose owner does (transitively). Cheap tests
     * first: a runnable thread ends the check before the JVM is asked for lock owners, in one batch.
     */
    private boolean allIdle(Session current) {
        Map<Long, Thread> parked = new HashMap<>();
        for (Thread thread : current.threads) {
            if (current.idle.contains(thread)) continue;
            Thread.State state = thread.getState();
            if (state == Thread.State.TERMINATED) continue;
            if (state != Thread.State.WAITING && state != Thread.State.BLOCKED && state != Thread.State.TIMED_WAITING) return false;
            parked.put(thread.getId(), thread);
        }
        if (parked.isEmpty()) return true;
        long[] ids = parked.keySet().stream().mapToLong(Long::longValue).toArray();
        Map<Long, Long> ownerOf = new HashMap<>();
        for (ThreadInfo info : threads.getThreadInfo(ids)) {
            if (info == null) continue; // ended meanwhile
            Thread.State state = info.getThreadState();
            boolean parkedNow = state == Thread.State.WAITING || state == Thread.State.BLOCKED || state == Thread.State.TIMED_WAITING;
            if (!parkedNow || info.getLockOwnerId() < 0) return false; // running again, or a lock just released
            ownerOf.put(info.getThreadId(), info.getLockOwnerId());
        }
        Set<Long> idleIds = new HashSet<>();
        for (Thread thread : current.idle) idleIds.add(thread.getId());
        for (long id : ownerOf.keySet()) {
            long at = id;
            for (int depth = 0; ; depth++) {
                Long owner = ownerOf.get(at);
                if (owner == null || depth > 8) return false;
                if (idleIds.contains(owner)) break;
                at = owner;
            }
        }
        return true;
    }

    private void startCommand(Map<String, Object> command, Function<Map<String, Object>, Object> perform) {
        String id = (String) command.get("id");
        final Session mine;
        synchronized (lock) {
            mine = session;
        }
        Thread thread = new Thread(() -> {
            owner.set(mine);
            cause.set(id);
            Map<String, Object> result = Json.map("type", "result", "id", id);
            try {
                Object content = perform.apply(command);
                result.put("outcome", "ok");
                if (content != null) result.put("content", content);
            } catch (AppError error) {
                result.put("outcome", "error");
                result.put("error", Json.map("code", error.code, "message", error.getMessage(), "definite", error.definite));
            } catch (StaleSession ended) {
                result = null;
            } catch (RuntimeException error) {
                result.put("outcome", "error");
                result.put("error", Json.map("code", "internalError", "message", error.getClass().getSimpleName(), "definite", true));
            }
            synchronized (lock) {
                Session own = owner.get();
                if (own == session && result != null && own.answered.add(id)) write(result);
                own.threads.remove(Thread.currentThread());
                own.idle.remove(Thread.currentThread());
                lock.notifyAll();
            }
        }, "command-" + id);
        synchronized (lock) {
            mine.threads.add(thread);
        }
        thread.setDaemon(true);
        thread.start();
    }

    /** Runs app work on a thread of its own (a background task), counted like a command's. */
    void spawn(String name, Runnable work) {
        final Session mine;
        synchronized (lock) {
            mine = mine();
            if (mine != session) return;
        }
        Thread thread = new Thread(() -> {
            owner.set(mine);
            try {
                work.run();
            } catch (RuntimeException ended) {
                // a stale session or a failure of background work: nothing to answer
            }
            synchronized (lock) {
                mine.threads.remove(Thread.currentThread());
                mine.idle.remove(Thread.currentThread());
                lock.notifyAll();
            }
        }, name);
        synchronized (lock) {
            mine.threads.add(thread);
        }
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
