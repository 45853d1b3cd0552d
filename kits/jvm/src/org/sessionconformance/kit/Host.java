package org.sessionconformance.kit;

import java.io.ByteArrayOutputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The protocol v1 host of session-conformance (docs/adapter-protocol.md): it reads the runner's JSON lines,
 * starts each command on a thread of its own, sends the client's effects and events, answers barriers when the
 * client is idle, and counts loopback HTTP. An adapter is glue between a {@link Client} and this class.
 *
 * <h2>When the client is idle</h2>
 * A barrier is answered once (1) no delivery of a reply is queued, (2) every response the runner counted
 * ({@code httpAnswered}) has reached the client, and (3) every <em>client thread</em> is idle. Client threads
 * are the command threads, {@link #spawn} threads and the threads of {@link #executor()} while they run a task
 * (a pool thread with no task waits on nothing). A client thread is idle while it waits through the host
 * (an effect's reply, {@link #await}, a loopback request in flight), or while it is parked on a lock (a monitor
 * or a {@code java.util.concurrent} lock) whose owner is idle, transitively, as read from the JVM
 * ({@link ThreadMXBean}): so a library that holds its lock across a request (google-oauth-client's
 * {@code Credential}) needs nothing. A thread parked any other way (a latch, {@code Object.wait}, a future not
 * of the host) counts as runnable: wait through {@link #await} instead. Threads the client starts itself are
 * not seen at all: start them with {@link #spawn} or {@link #executor()}.
 *
 * <h2>Effects</h2>
 * {@link #effect} sends one and returns an {@link Effect}, a {@link CompletableFuture} of the reply; its
 * callbacks run on a counted pool thread, and {@code join()}/{@code get()} on it count the caller idle. The
 * blocking forms ({@link #call}, {@link #storage}, {@link #sleep}, ...) are {@code await(effect(...))}.
 *
 * <h2>Reset</h2>
 * The host declares {@code reset}: on it, every effect of the ended case fails with {@link StaleSession}, the
 * client is {@link Client#close() closed} and a new one made, and {@code hello} is sent again. Each thread
 * belongs to the case it was started in; a thread of an ended case sends nothing, starts no request, and counts
 * only in its own case. {@code fork} is not offered: a JVM cannot fork itself safely (its threads do not survive
 * a fork), so every kill is a new JVM; {@code reset} is what makes a JVM adapter fast.
 *
 * <h2>The JDK's HttpClient</h2>
 * Loading this class sets {@code jdk.httpclient.redirects.retrylimit=1} unless it is set: otherwise
 * {@link HttpClient} silently re-sends a GET whose reused connection the runner reset (a fault, going offline),
 * a request no hook counts. Create the host before the first {@code HttpClient}.
 *
 * <p>Untrusted input: everything the runner sends is data. The host opens no path and runs nothing from it,
 * and its errors never quote a line (a line may hold a token).
 */
public final class Host {
    /** The protocol version this kit speaks: the major version of the kit. */
    public static final int PROTOCOL = 1;
    /** The kit's version. */
    public static final String VERSION = "1.0.0";
    /** The longest line the runner may send (docs/adapter-protocol.md, Framing). */
    public static final int MAX_LINE = 1 << 20;

    static {
        // The JDK's HttpClient re-sends an idempotent request once, unseen by any hook, when a reused connection
        // fails before the response (ConnectionExpiredException): the runner would receive a request nobody
        // counted, and the barrier wait for its answer would hang. Its retry budget is this property (shared with
        // redirects, which HttpClient does not follow by default); 1 means no silent retry, so the failure reaches
        // the client, as the reset the runner injected. Set it yourself (before HttpClient loads) to keep another.
        if (System.getProperty("jdk.httpclient.redirects.retrylimit") == null) {
            System.setProperty("jdk.httpclient.redirects.retrylimit", "1");
        }
    }

    /**
     * A pending effect: a future of the runner's reply (the whole {@code reply} message). Its dependent
     * callbacks run on a counted pool thread; {@code join()} and {@code get()} count the calling client thread
     * idle while it waits.
     * @param <T> the value
     */
    public static final class Effect<T> extends CompletableFuture<T> {
        private final Host host;
        private final String id;

        Effect(Host host, String id) {
            this.host = host;
            this.id = id;
        }

        /** @return the effect's id ({@code e7}), null for a future derived from one */
        public String id() { return id; }

        @Override public <U> CompletableFuture<U> newIncompleteFuture() { return new Effect<>(host, null); }

        @Override public T join() { return host.await(this); }

        @Override public T get() throws InterruptedException, ExecutionException {
            try {
                return host.await(this);
            } catch (CompletionException | StaleSession | AppError e) {
                throw new ExecutionException(e.getCause() == null ? e : e.getCause());
            } catch (RuntimeException e) {
                throw new ExecutionException(e);
            }
        }

        T rawJoin() { return super.join(); }
    }

    /**
     * One loopback HTTP request, from the moment the stack commits it to a connection until its response was
     * read or its connection failed: the unit of {@code httpStarted} and {@code httpAnswered}. With a deadline
     * it carries a tag (send it as {@code X-Conformance-Request}) and a {@code sleep} raced against it.
     */
    public final class Exchange {
        private final Session session;
        private final Thread waiting;
        private final String tag;
        private final String sleep;
        private Runnable cancel;
        private boolean done;
        private boolean ended;
        private boolean abandoned;

        private Exchange(Session session, Thread waiting, String tag, String sleep) {
            this.session = session;
            this.waiting = waiting;
            this.tag = tag;
            this.sleep = sleep;
        }

        /** @return the value of the {@code X-Conformance-Request} header to send, or null without a deadline */
        public String tag() { return tag; }

        /** @return whether its deadline passed first: it was abandoned, so the stack must fail it as a timeout */
        public boolean abandoned() {
            synchronized (lock) {
                return abandoned;
            }
        }

        /**
         * What gives the request up when its deadline passes first (cancel the call, close its socket); run on
         * the host's reader thread, after {@code abandon} was sent. Run at once when the deadline passed already.
         * @param action the cancellation
         */
        public void onDeadline(Runnable action) {
            boolean now;
            synchronized (lock) {
                cancel = action;
                now = abandoned;
            }
            if (now) action.run();
        }

        /**
         * The request ended: its response was read, or its connection failed. Counted finished (once), the
         * waiting thread counted runnable, and its deadline's {@code sleep} abandoned ({@code answered}). An
         * exchange abandoned at its deadline is not counted (the runner never answers it) unless its response
         * was read after all (it crossed the abandon, which the runner then ignores).
         * @param responseRead whether a response was read (false: the connection failed or was cancelled)
         */
        public void finished(boolean responseRead) { finishedThen(responseRead, null); }

        void finishedThen(boolean responseRead, Runnable deliver) {
            synchronized (lock) {
                if (done) return;
                done = true;
                if (!abandoned) {
                    session.finished += 1;
                    ended = true;
                    if (sleep != null && session.deadlines.remove(sleep) != null && session == current) {
                        write(Json.map("type", "abandon", "id", sleep, "reason", "answered"));
                    }
                    if (deliver != null) enqueue(session, deliver, null);
                } else if (responseRead) {
                    session.finished += 1;
                }
                if (waiting != null && session.idle.get(waiting) == this) session.idle.remove(waiting);
                lock.notifyAll();
            }
        }
    }

    /** What one case (one {@code hello}) owns and counts. */
    private static final class Session {
        final Map<String, Effect<Map<String, Object>>> effects = new HashMap<>();
        final Map<String, Race> races = new HashMap<>();
        final Map<String, Exchange> deadlines = new HashMap<>();
        final Set<Thread> threads = new HashSet<>();
        final Map<Thread, Object> idle = new HashMap<>();
        final Set<String> answered = new HashSet<>();
        Client client;
        int nextEffect;
        int nextTag;
        int queued;
        long started;
        long finished;
    }

    /** A message-mode request raced against its deadline's sleep. */
    private static final class Race {
        final String request;
        final String sleep;
        final Effect<Map<String, Object>> out;

        Race(String request, String sleep, Effect<Map<String, Object>> out) {
            this.request = request;
            this.sleep = sleep;
            this.out = out;
        }
    }

    private final Object lock = new Object();
    private final InputStream in;
    private final OutputStream out;
    private final ThreadLocal<Session> owner = new ThreadLocal<>();
    private final ThreadLocal<String> cause = new ThreadLocal<>();
    private final ThreadMXBean jvm = ManagementFactory.getThreadMXBean();
    private final ExecutorService pool = Executors.newCachedThreadPool(work -> {
        Thread thread = new Thread(work, "conformance-client");
        thread.setDaemon(true);
        return thread;
    });
    private final ExecutorService counted = new CountedExecutor();
    private Session current = new Session();

    private Map<String, Object> implementation = Json.map("name", "unnamed-client", "version", "0.0.0",
            "language", "Java", "platform", "jvm-" + System.getProperty("java.version"));
    private final List<String> capabilities = new ArrayList<>();
    private List<String> refreshTriggers;
    private final Map<String, Object> helloFields = new LinkedHashMap<>();
    private boolean loopback;
    private boolean declareReset = true;
    private volatile double requestTimeout;

    private volatile double wall;
    private volatile double monotonic;
    private volatile String baseURL;
    private volatile String seed;
    private volatile Map<String, Object> world = new LinkedHashMap<>();

    /**
     * A host on the process's stdin and stdout. {@code System.out} is pointed at stderr, so a stray
     * {@code println} of the client goes to the adapter's log instead of breaking the protocol.
     */
    public Host() {
        this(System.in, new FileOutputStream(FileDescriptor.out));
        System.setOut(new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8));
    }

    /**
     * A host on any streams (tests, a socket transport).
     * @param in the runner's messages
     * @param out where the adapter's messages go
     */
    public Host(InputStream in, OutputStream out) {
        this.in = in;
        this.out = out;
    }

    // ---- Configuration: what hello says. Call before run.

    /**
     * The {@code implementation} of {@code hello}.
     * @param name the client's name
     * @param version its version
     * @param language its language (Java, Kotlin)
     * @param platform where it runs
     * @return this host
     */
    public Host implementation(String name, String version, String language, String platform) {
        implementation = Json.map("name", name, "version", version, "language", language, "platform", platform);
        return this;
    }

    /**
     * The optional features the client implements ({@code background-refresh}, {@code offline-browsing});
     * {@code reset} is added by the host (see {@link #declareReset}).
     * @param names the capabilities
     * @return this host
     */
    public Host capabilities(String... names) {
        capabilities.clear();
        capabilities.addAll(List.of(names));
        return this;
    }

    /**
     * What starts the client's refreshes ({@code unauthorized}, {@code expiry}, {@code background}); not sent
     * unless set (the runner then finds out).
     * @param names the triggers
     * @return this host
     */
    public Host refreshTriggers(String... names) {
        refreshTriggers = new ArrayList<>(List.of(names));
        return this;
    }

    /**
     * Loopback mode: {@code "http":"loopback"} in {@code hello}; the client's real HTTP goes to {@link #baseURL()}
     * and is counted through {@link #send}, {@link #startExchange} or the OkHttp interceptors. Off: message mode.
     * @param on whether to ask for loopback HTTP
     * @return this host
     */
    public Host loopback(boolean on) {
        loopback = on;
        return this;
    }

    /**
     * Whether {@code hello} declares {@code reset} (default true: the host implements it).
     * @param declare false to have the runner start a process per case
     * @return this host
     */
    public Host declareReset(boolean declare) {
        declareReset = declare;
        return this;
    }

    /**
     * Another field of {@code hello}, such as {@code offlinePolicy}.
     * @param name the field
     * @param value its value (JSON-writable)
     * @return this host
     */
    public Host helloField(String name, Object value) {
        helloFields.put(name, value);
        return this;
    }

    /**
     * A deadline, in seconds of the runner's virtual clock, on every loopback request the host counts
     * ({@link #send}, {@link #sendAsync}, the OkHttp network interceptor); 0 (the default) for none. Turn the
     * stack's own real-time timeouts off when you set one.
     * @param seconds the deadline, 0 for none
     * @return this host
     */
    public Host requestTimeout(double seconds) {
        if (!(seconds >= 0) || Double.isInfinite(seconds)) throw new IllegalArgumentException("a request timeout is a number of seconds >= 0");
        requestTimeout = seconds;
        return this;
    }

    /** @return the loopback request deadline in seconds, 0 for none */
    public double requestTimeout() { return requestTimeout; }

    /** @return the {@code hello} message the host sends */
    public Map<String, Object> hello() {
        Map<String, Object> hello = Json.map("type", "hello", "protocol", (long) PROTOCOL, "implementation", implementation);
        List<String> declared = new ArrayList<>(capabilities);
        if (declareReset && !declared.contains("reset")) declared.add("reset");
        hello.put("capabilities", declared);
        if (refreshTriggers != null) hello.put("refreshTriggers", refreshTriggers);
        if (loopback) hello.put("http", "loopback");
        hello.putAll(helloFields);
        return hello;
    }

    // ---- What the runner said.

    /** @return the device's wall clock, seconds since 1970 (the last {@code clock} or {@code welcome}) */
    public double wall() { return wall; }

    /** @return the monotonic clock in seconds; it only grows */
    public double monotonic() { return monotonic; }

    /** @return the loopback server's base URL ({@code http://127.0.0.1:PORT}), null in message mode */
    public String baseURL() { return baseURL; }

    /** @return the process's seed (a decimal string of 64 bits) */
    public String seed() { return seed; }

    /** @return the world profile of the welcome ({@code name}, {@code signIn}, {@code refresh}, ...), empty when absent */
    public Map<String, Object> world() { return world; }

    /** @return whether the calling thread belongs to the case in progress (false: a thread left from before a reset) */
    public boolean isCurrent() {
        synchronized (lock) {
            return mine() == current;
        }
    }

    /** @return the command the calling thread serves (for {@code X-Conformance-Cause}), null outside one */
    public String cause() { return cause.get(); }

    // ---- Events.

    /**
     * Sends an event (a {@code transition}, {@code ui}, {@code log} or {@code result} message). From a thread of
     * an ended case it is dropped.
     * @param message the message, with its {@code type}
     */
    public void send(Map<String, Object> message) {
        synchronized (lock) {
            if (mine() != current) return;
            write(message);
        }
    }

    /**
     * A {@code log} event. Never put a token in it: the runner scans logs for token values.
     * @param level debug, info, warning or error
     * @param message the text
     */
    public void log(String level, String message) { send(Json.map("type", "log", "level", level, "message", message)); }

    /**
     * A {@code transition} event (Specs/state-machine.yaml).
     * @param transition its ID, null for the launch's entry into {@code restoring}
     * @param from the state before, null for the entry
     * @param to the state after
     * @param account the account id, or null
     * @param generation the session generation after it
     * @param reason the event or failure class
     */
    public void transition(String transition, String from, String to, String account, long generation, String reason) {
        send(Json.map("type", "transition", "transition", transition, "from", from, "to", to, "account", account,
                "generation", generation, "reason", reason));
    }

    /**
     * A {@code ui} {@code content} event: a screen shows a resource.
     * @param resource the resource
     * @param account whose it is, as the client believes
     * @param generation the session generation it was fetched in
     * @param contentId the {@code contentId} of the response shown
     */
    public void showContent(String resource, String account, long generation, Object contentId) {
        send(Json.map("type", "ui", "event", "content", "resource", resource, "account", account,
                "generation", generation, "contentId", contentId));
    }

    /** A {@code ui} {@code signInPrompt} event: the sign-in screen is shown. */
    public void signInPrompt() { send(Json.map("type", "ui", "event", "signInPrompt")); }

    /**
     * Answers a command now, from any thread (a session end fails the commands waiting on it); the command
     * thread's own answer is then dropped.
     * @param id the command's id
     * @param error null for {@code ok}, else the error ({@code code}, {@code message}, {@code definite})
     */
    public void answerNow(String id, Map<String, Object> error) {
        synchronized (lock) {
            Session mine = mine();
            if (mine != current || !mine.answered.add(id)) return;
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

    // ---- Effects.

    /**
     * Sends an effect; the reply completes the returned future (on a counted pool thread).
     * @param message the effect, with its {@code type} ({@code http} in message mode, {@code storage},
     *     {@code preferences}, {@code sleep}); the host adds its {@code id}
     * @return the reply message ({@code value}, {@code error}, {@code response} or {@code failure})
     * @throws StaleSession on a thread of an ended case
     */
    public Effect<Map<String, Object>> effect(Map<String, Object> message) {
        if (loopback && "http".equals(message.get("type"))) {
            throw new IllegalStateException("loopback mode: HTTP goes to baseURL(), not as an http effect");
        }
        synchronized (lock) {
            Session mine = mine();
            if (mine != current) throw new StaleSession();
            return sendEffect(mine, message);
        }
    }

    private Effect<Map<String, Object>> sendEffect(Session mine, Map<String, Object> message) {
        mine.nextEffect += 1;
        String id = "e" + mine.nextEffect;
        Map<String, Object> copy = new LinkedHashMap<>();
        copy.put("type", message.get("type"));
        copy.put("id", id);
        message.forEach(copy::putIfAbsent);
        Effect<Map<String, Object>> reply = new Effect<>(this, id);
        mine.effects.put(id, reply);
        write(copy);
        return reply;
    }

    /**
     * Sends an effect and waits for its reply (the calling thread counts idle meanwhile).
     * @param message the effect
     * @return the reply message
     */
    public Map<String, Object> call(Map<String, Object> message) { return await(effect(message)); }

    /**
     * A {@code storage} effect (secure storage).
     * @param op get, set or delete
     * @param key the item
     * @param value the value to set, or null
     * @param accessibility for set: {@code afterFirstUnlock} or {@code whenUnlocked}; else null
     * @return the reply: {@code value} for get, {@code error} ({@code locked}, {@code writeFailed}) when refused
     */
    public Effect<Map<String, Object>> storageAsync(String op, String key, String value, String accessibility) {
        Map<String, Object> message = Json.map("type", "storage", "op", op, "key", key);
        if ("set".equals(op)) {
            message.put("value", value);
            message.put("accessibility", accessibility == null ? "afterFirstUnlock" : accessibility);
        }
        return effect(message);
    }

    /**
     * {@link #storageAsync}, waited for.
     * @param op get, set or delete
     * @param key the item
     * @param value the value to set, or null
     * @param accessibility for set, or null ({@code afterFirstUnlock})
     * @return the reply
     */
    public Map<String, Object> storage(String op, String key, String value, String accessibility) {
        return await(storageAsync(op, key, value, accessibility));
    }

    /**
     * A {@code preferences} effect.
     * @param op get, set or delete
     * @param key the key
     * @param value the value to set (any JSON value), or null
     * @return the reply: {@code value} for get, {@code error} {@code writeFailed} when refused
     */
    public Effect<Map<String, Object>> preferencesAsync(String op, String key, Object value) {
        Map<String, Object> message = Json.map("type", "preferences", "op", op, "key", key);
        if ("set".equals(op)) message.put("value", value);
        return effect(message);
    }

    /**
     * {@link #preferencesAsync}, waited for.
     * @param op get, set or delete
     * @param key the key
     * @param value the value to set, or null
     * @return the reply
     */
    public Map<String, Object> preferences(String op, String key, Object value) { return await(preferencesAsync(op, key, value)); }

    /**
     * A {@code sleep} effect: completes when the virtual clock has moved {@code seconds} on, never sooner. Use
     * it for every wait (backoff, retry delay, timer): real time is not the client's clock.
     * @param seconds monotonic seconds
     * @return the (empty) reply
     */
    public Effect<Map<String, Object>> sleepAsync(double seconds) { return effect(Json.map("type", "sleep", "seconds", seconds)); }

    /**
     * {@link #sleepAsync}, waited for.
     * @param seconds monotonic seconds
     */
    public void sleep(double seconds) { await(sleepAsync(seconds)); }

    /**
     * Message mode: an {@code http} effect, its {@code cause} the calling thread's command.
     * @param method GET, POST, ...
     * @param path the path ({@code /auth/login})
     * @param headers lower-case names to values (may be null)
     * @param body a JSON value, a string (form or text), or null
     * @return the reply: {@code response} ({@code status}, {@code headers}, {@code body}) or {@code failure}
     */
    public Effect<Map<String, Object>> httpAsync(String method, String path, Map<String, String> headers, Object body) {
        return effect(httpMessage(method, path, headers, body));
    }

    /**
     * {@link #httpAsync}, waited for.
     * @param method the method
     * @param path the path
     * @param headers the headers, or null
     * @param body the body, or null
     * @return the reply
     */
    public Map<String, Object> http(String method, String path, Map<String, String> headers, Object body) {
        return await(httpAsync(method, path, headers, body));
    }

    private Map<String, Object> httpMessage(String method, String path, Map<String, String> headers, Object body) {
        Map<String, Object> request = Json.map("method", method, "path", path,
                "headers", headers == null ? new LinkedHashMap<String, Object>() : new LinkedHashMap<String, Object>(headers), "body", body);
        Map<String, Object> message = Json.map("type", "http");
        String command = cause();
        if (command != null) message.put("cause", command);
        message.put("request", request);
        return message;
    }

    /**
     * Message mode, the deadline recipe: an {@code http} effect raced against a {@code sleep} of
     * {@code seconds}. The first reply the host reads wins and the other effect is abandoned at once, before the
     * next line is read: the request answered first sends {@code {"type":"abandon","id":SLEEP,"reason":"answered"}};
     * the deadline first sends {@code {"type":"abandon","id":REQUEST,"reason":"timeout"}} and completes the future
     * with the reply a runner timeout would be, {@code "failure":{"code":"timeout","definite":false}}, plus
     * {@code "deadline":true}. When both replies land in the same round, the one the runner wrote first wins; the
     * abandon of the other is sent all the same (the runner ignores an abandon of an effect it answered, and
     * notes it in the trace), and the loser's reply is dropped.
     * @param method the method
     * @param path the path
     * @param headers the headers, or null
     * @param body the body, or null
     * @param seconds the deadline on the virtual clock
     * @return the reply, or the deadline's timeout failure
     */
    public Effect<Map<String, Object>> httpAsync(String method, String path, Map<String, String> headers, Object body, double seconds) {
        Map<String, Object> message = httpMessage(method, path, headers, body);
        synchronized (lock) {
            Session mine = mine();
            if (mine != current) throw new StaleSession();
            Effect<Map<String, Object>> request = sendEffect(mine, message);
            Effect<Map<String, Object>> sleep = sendEffect(mine, Json.map("type", "sleep", "seconds", seconds));
            mine.effects.remove(request.id());
            mine.effects.remove(sleep.id());
            Effect<Map<String, Object>> out = new Effect<>(this, request.id());
            Race race = new Race(request.id(), sleep.id(), out);
            mine.races.put(request.id(), race);
            mine.races.put(sleep.id(), race);
            return out;
        }
    }

    /**
     * Gives up on an effect ({@code http} or {@code sleep}; never storage or preferences): sends {@code abandon}
     * and fails the future with a {@link java.util.concurrent.CancellationException}. Its reply, if it comes, is dropped.
     * @param effect the effect
     * @param reason free text for the trace ({@code timeout}, {@code cancelled}, {@code answered})
     */
    public void abandon(Effect<?> effect, String reason) {
        synchronized (lock) {
            Session mine = mine();
            if (mine != current || effect.id() == null || mine.effects.remove(effect.id()) == null) return;
            write(Json.map("type", "abandon", "id", effect.id(), "reason", reason));
        }
        effect.cancel(false);
    }

    /**
     * Waits for a future, the calling client thread counted idle until it completes. Complete the futures you
     * wait on from a client thread (a command, a {@link #spawn} or {@link #executor()} task) or from the host
     * (effects), so that no barrier is answered between the completion and the waiter running again.
     * @param stage the future
     * @param <T> its value
     * @return its value
     * @throws StaleSession when the case ended; the future's own exception if it is unchecked; else a
     *     {@link CompletionException}
     */
    public <T> T await(CompletionStage<T> stage) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        Thread me = Thread.currentThread();
        Object token = new Object();
        Session mine;
        synchronized (lock) {
            mine = mine();
            if (mine != current && !future.isDone()) throw new StaleSession();
        }
        Runnable runnable = () -> {
            synchronized (lock) {
                if (mine.idle.get(me) == token) mine.idle.remove(me);
            }
        };
        // The wake-up is registered before the thread is counted idle, and the completer (a counted thread)
        // runs it: so there is no moment in which the future is complete and this thread still counted idle.
        future.whenComplete((value, error) -> runnable.run());
        synchronized (lock) {
            if (!future.isDone() && mine.threads.contains(me)) mine.idle.put(me, token);
            lock.notifyAll();
        }
        try {
            return future instanceof Effect ? ((Effect<T>) future).rawJoin() : future.join();
        } catch (CompletionException failure) {
            Throwable cause = failure.getCause();
            if (cause instanceof RuntimeException) throw (RuntimeException) cause;
            if (cause instanceof Error) throw (Error) cause;
            throw failure;
        } finally {
            runnable.run();
        }
    }

    // ---- Threads.

    /**
     * Runs client work on a thread of its own (a background task), counted like a command's; from a thread of
     * an ended case it is not started.
     * @param name the thread's name
     * @param work the work; an exception it throws ends it
     */
    public void spawn(String name, Runnable work) {
        Session mine;
        synchronized (lock) {
            mine = mine();
            if (mine != current) return;
        }
        String command = cause();
        start(mine, name, () -> {
            cause.set(command);
            try {
                work.run();
            } catch (RuntimeException | Error failure) {
                if (!(failure instanceof StaleSession)) report("background task " + name, failure);
            }
        });
    }

    /**
     * An executor whose tasks are counted client work: a task queued or running keeps barriers waiting; a pool
     * thread with no task waits on nothing. Give it to libraries that take one (OkHttp's {@code Dispatcher},
     * {@code CompletableFuture.supplyAsync}). Tasks inherit the submitter's case and command.
     * @return the executor (shutting it down does nothing)
     */
    public ExecutorService executor() { return counted; }

    private final class CountedExecutor extends AbstractExecutorService {
        @Override public void execute(Runnable task) {
            Session mine;
            synchronized (lock) {
                mine = mine();
                enqueue(mine, task, cause());
            }
        }

        @Override public void shutdown() {}

        @Override public List<Runnable> shutdownNow() { return List.of(); }

        @Override public boolean isShutdown() { return false; }

        @Override public boolean isTerminated() { return false; }

        @Override public boolean awaitTermination(long timeout, TimeUnit unit) { return false; }
    }

    /** Queues counted work (holding the lock): counted from now, so no barrier is answered before it ran. */
    private void enqueue(Session mine, Runnable task, String command) {
        mine.queued += 1;
        pool.execute(() -> {
            Thread me = Thread.currentThread();
            synchronized (lock) {
                mine.queued -= 1;
                mine.threads.add(me);
            }
            owner.set(mine);
            cause.set(command);
            try {
                task.run();
            } catch (RuntimeException | Error failure) {
                if (!(failure instanceof StaleSession)) report("a task", failure);
            } finally {
                owner.remove();
                cause.remove();
                synchronized (lock) {
                    mine.threads.remove(me);
                    mine.idle.remove(me);
                    lock.notifyAll();
                }
            }
        });
    }

    private void start(Session mine, String name, Runnable work) {
        Thread thread = new Thread(() -> {
            owner.set(mine);
            try {
                work.run();
            } finally {
                synchronized (lock) {
                    mine.threads.remove(Thread.currentThread());
                    mine.idle.remove(Thread.currentThread());
                    lock.notifyAll();
                }
            }
        }, name);
        thread.setDaemon(true);
        synchronized (lock) {
            mine.threads.add(thread); // counted from before it starts
        }
        thread.start();
    }

    // ---- Loopback HTTP.

    /**
     * Counts one loopback request as started, where the stack commits it to a connection (an OkHttp network
     * interceptor, a transport's send). With a deadline ({@link #requestTimeout}) it gets a tag and a
     * {@code sleep}; when the sleep's reply comes first, the host sends {@code {"type":"abandon","id":TAG,
     * "reason":"timeout"}}, counts the waiting thread runnable and runs {@link Exchange#onDeadline}.
     * @param blocking whether the calling thread now waits for the response (it counts idle until
     *     {@link Exchange#finished})
     * @param deadline seconds of virtual time, 0 for none
     * @return the exchange; call {@link Exchange#finished} exactly when it ends
     * @throws StaleSession on a thread of an ended case: the request must not be sent
     */
    public Exchange startExchange(boolean blocking, double deadline) {
        synchronized (lock) {
            Session mine = mine();
            if (mine != current) throw new StaleSession();
            String tag = null;
            String sleep = null;
            if (deadline > 0) {
                mine.nextTag += 1;
                tag = "r" + mine.nextTag;
                mine.nextEffect += 1;
                sleep = "e" + mine.nextEffect;
            }
            Thread me = Thread.currentThread();
            Exchange exchange = new Exchange(mine, blocking && mine.threads.contains(me) ? me : null, tag, sleep);
            if (sleep != null) {
                mine.deadlines.put(sleep, exchange);
                write(Json.map("type", "sleep", "id", sleep, "seconds", deadline));
            }
            mine.started += 1;
            if (exchange.waiting != null) mine.idle.put(me, exchange);
            lock.notifyAll();
            return exchange;
        }
    }

    /**
     * Sends a request through the JDK's {@link HttpClient}, counted (loopback mode): adds
     * {@code X-Conformance-Cause} (the calling thread's command) and, with a {@link #requestTimeout}, the
     * deadline. Build the client with {@code HttpClient.Version.HTTP_1_1} (the runner's server speaks HTTP/1.1;
     * the default asks for an h2c upgrade) and set no {@code HttpRequest.timeout} (real time).
     * @param client the client's HttpClient
     * @param request the request, to {@link #baseURL()}
     * @param handler the body handler
     * @param <T> the body type
     * @return the response; a passed deadline completes it with {@link HttpTimeoutException}
     */
    public <T> Effect<HttpResponse<T>> sendAsync(HttpClient client, HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        Effect<HttpResponse<T>> result = new Effect<>(this, null);
        Exchange exchange;
        try {
            exchange = startExchange(false, requestTimeout);
        } catch (StaleSession ended) {
            result.completeExceptionally(new IOException("the case this request served has ended"));
            return result;
        }
        HttpRequest.Builder builder = HttpRequest.newBuilder(request, (name, value) -> true);
        String command = cause();
        if (command != null) builder.setHeader("X-Conformance-Cause", command);
        if (exchange.tag() != null) builder.setHeader("X-Conformance-Request", exchange.tag());
        CompletableFuture<HttpResponse<T>> sent;
        try {
            sent = client.sendAsync(builder.build(), handler);
        } catch (RuntimeException failure) {
            exchange.finished(false);
            throw failure;
        }
        exchange.onDeadline(() -> {
            sent.cancel(true);
            synchronized (lock) {
                enqueue(exchange.session, () -> result.completeExceptionally(
                        new HttpTimeoutException("the request's deadline passed on the runner's clock")), null);
            }
        });
        sent.whenComplete((response, failure) -> exchange.finishedThen(response != null, () -> {
            if (response != null) result.complete(response);
            else result.completeExceptionally(failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure);
        }));
        return result;
    }

    /**
     * {@link #sendAsync}, waited for (the calling thread counts idle meanwhile).
     * @param client the HttpClient
     * @param request the request
     * @param handler the body handler
     * @param <T> the body type
     * @return the response
     * @throws IOException as {@link HttpClient#send} would throw it ({@link HttpTimeoutException} at a deadline)
     */
    public <T> HttpResponse<T> send(HttpClient client, HttpRequest request, HttpResponse.BodyHandler<T> handler) throws IOException {
        try {
            return await(sendAsync(client, request, handler));
        } catch (CompletionException failure) {
            if (failure.getCause() instanceof IOException) throw (IOException) failure.getCause();
            throw failure;
        }
    }

    // ---- The loop.

    /**
     * Serves the runner until stdin ends, then exits the process: status 0, or 2 with the reason on stderr when
     * the input broke the protocol.
     * @param clients makes the client of each case
     */
    public void serve(Supplier<Client> clients) {
        try {
            run(clients);
        } catch (ProtocolError error) {
            System.err.println("session-conformance kit: " + error.getMessage());
            System.err.flush();
            Runtime.getRuntime().halt(2);
        } catch (IOException error) {
            System.err.println("session-conformance kit: reading stdin failed: " + error.getClass().getSimpleName());
            Runtime.getRuntime().halt(2);
        }
        System.err.flush();
        Runtime.getRuntime().halt(0);
    }

    /**
     * Sends {@code hello} and handles the runner's messages until the input ends.
     * @param clients makes the client of each case (each {@code hello})
     * @throws ProtocolError when the input breaks protocol v1
     * @throws IOException when reading fails
     */
    public void run(Supplier<Client> clients) throws IOException {
        synchronized (lock) {
            current.client = clients.get();
            write(hello());
        }
        byte[] buffer = new byte[65536];
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        long number = 0;
        while (true) {
            int count = in.read(buffer);
            if (count < 0) break;
            int start = 0;
            for (int i = 0; i < count; i++) {
                if (buffer[i] != '\n') continue;
                line.write(buffer, start, i - start);
                start = i + 1;
                number += 1;
                if (line.size() > MAX_LINE) throw new ProtocolError("line " + number + " is longer than 1 MiB");
                handle(decode(line.toByteArray(), number), number, clients);
                line.reset();
            }
            line.write(buffer, start, count - start);
            if (line.size() > MAX_LINE) throw new ProtocolError("line " + (number + 1) + " is longer than 1 MiB");
        }
        if (line.size() > 0) handle(decode(line.toByteArray(), number + 1), number + 1, clients);
    }

    private static String decode(byte[] bytes, long number) {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ProtocolError("line " + number + " is not UTF-8");
        }
    }

    private void handle(String line, long number, Supplier<Client> clients) {
        if (line.isBlank()) return;
        Map<String, Object> message;
        try {
            message = Json.object(line);
        } catch (Json.ParseError error) {
            throw new ProtocolError("line " + number + " is not a JSON object: " + error.getMessage());
        }
        Object type = message.get("type");
        if (!(type instanceof String)) throw new ProtocolError("line " + number + " has no \"type\"");
        switch ((String) type) {
            case "welcome": {
                Map<String, Object> clock = Json.asMap(message.get("clock"));
                setClock(clock);
                Object seedValue = message.get("seed");
                seed = seedValue == null ? null : String.valueOf(seedValue);
                Object base = Json.asMap(message.get("http")).get("baseURL");
                baseURL = base instanceof String ? (String) base : null;
                world = Json.asMap(message.get("world"));
                Client client;
                synchronized (lock) {
                    client = current.client;
                }
                client.welcome(message);
                break;
            }
            case "error": {
                Object code = message.get("code");
                throw new ProtocolError("the runner refused the handshake ("
                        + (code instanceof String && ((String) code).matches("[A-Za-z0-9-]{1,64}") ? code : "no code") + ")");
            }
            case "clock":
                setClock(message);
                break;
            case "reset":
                reset(clients);
                break;
            case "reply":
                reply(message);
                break;
            case "command":
                if (!(message.get("id") instanceof String) || !(message.get("command") instanceof String)) {
                    throw new ProtocolError("line " + number + ": a command without a string \"id\" and \"command\"");
                }
                command(message);
                break;
            case "barrier":
                if (message.get("id") == null) throw new ProtocolError("line " + number + ": a barrier without \"id\"");
                barrier(message);
                break;
            default:
                throw new ProtocolError("line " + number + ": unknown message type (protocol v1 has welcome, error, "
                        + "command, reply, clock, barrier, reset)");
        }
    }

    private void setClock(Map<String, Object> clock) {
        if (clock.get("wall") instanceof Number) wall = ((Number) clock.get("wall")).doubleValue();
        if (clock.get("monotonic") instanceof Number) monotonic = ((Number) clock.get("monotonic")).doubleValue();
    }

    private void reset(Supplier<Client> clients) {
        Session old;
        synchronized (lock) {
            old = current;
            current = new Session();
        }
        List<Effect<Map<String, Object>>> pending = new ArrayList<>(old.effects.values());
        for (Race race : old.races.values()) pending.add(race.out);
        pending.forEach(effect -> effect.completeExceptionally(new StaleSession()));
        try {
            if (old.client != null) old.client.close();
        } catch (RuntimeException failure) {
            report("closing the client at reset", failure);
        }
        synchronized (lock) {
            current.client = clients.get();
            write(hello());
        }
    }

    private void reply(Map<String, Object> message) {
        Object idValue = message.get("id");
        if (!(idValue instanceof String)) return;
        String id = (String) idValue;
        Runnable cancel = null;
        synchronized (lock) {
            Session mine = current;
            Race race = mine.races.remove(id);
            if (race != null) {
                mine.races.remove(race.request);
                mine.races.remove(race.sleep);
                Map<String, Object> outcome;
                if (id.equals(race.request)) {
                    write(Json.map("type", "abandon", "id", race.sleep, "reason", "answered"));
                    outcome = message;
                } else {
                    write(Json.map("type", "abandon", "id", race.request, "reason", "timeout"));
                    outcome = Json.map("type", "reply", "id", race.request,
                            "failure", Json.map("code", "timeout", "definite", false), "deadline", true);
                }
                enqueue(mine, () -> race.out.complete(outcome), null);
                lock.notifyAll();
                return;
            }
            Exchange exchange = mine.deadlines.remove(id);
            if (exchange != null) {
                if (exchange.ended) return;
                exchange.abandoned = true;
                if (exchange.waiting != null && mine.idle.get(exchange.waiting) == exchange) mine.idle.remove(exchange.waiting);
                write(Json.map("type", "abandon", "id", exchange.tag, "reason", "timeout"));
                cancel = exchange.cancel;
                lock.notifyAll();
            } else {
                Effect<Map<String, Object>> effect = mine.effects.remove(id);
                if (effect != null) enqueue(mine, () -> effect.complete(message), null);
                return;
            }
        }
        if (cancel != null) cancel.run();
    }

    private void command(Map<String, Object> command) {
        String id = (String) command.get("id");
        Session mine;
        synchronized (lock) {
            mine = current;
        }
        start(mine, "command-" + id.replaceAll("[^A-Za-z0-9_-]", "_"), () -> {
            cause.set(id);
            Map<String, Object> result = Json.map("type", "result", "id", id);
            try {
                Object content = mine.client.perform(command);
                if (content instanceof CompletionStage) content = await((CompletionStage<?>) content);
                result.put("outcome", "ok");
                if (content != null) result.put("content", content);
            } catch (AppError error) {
                result.put("outcome", "error");
                result.put("error", Json.map("code", error.code(), "message", error.getMessage(), "definite", error.definite()));
            } catch (StaleSession ended) {
                result = null;
            } catch (Exception | Error failure) {
                report("command " + id, failure);
                result.put("outcome", "error");
                result.put("error", Json.map("code", "internalError", "message", failure.getClass().getSimpleName(), "definite", true));
            }
            synchronized (lock) {
                if (result != null && mine == current && mine.answered.add(id)) write(result);
            }
        });
    }

    private void barrier(Map<String, Object> message) {
        Object answeredValue = message.get("httpAnswered");
        long answered = answeredValue instanceof Number ? ((Number) answeredValue).longValue() : 0;
        synchronized (lock) {
            Session mine = current;
            // Polled: a thread parking on a library's lock tells nobody, so idleness is re-read, not only notified.
            while (mine.queued > 0 || mine.finished < answered || !allIdle(mine)) {
                try {
                    lock.wait(1);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
            Map<String, Object> answer = Json.map("type", "barrier", "id", message.get("id"));
            if (loopback) answer.put("httpStarted", mine.started);
            write(answer);
        }
    }

    /**
     * Every client thread waits through the host, or is parked on a lock whose owner does (transitively).
     * Cheap tests first: a runnable thread ends the check before the JVM is asked for lock owners, in one batch.
     */
    private boolean allIdle(Session mine) {
        Map<Long, Thread> parked = new HashMap<>();
        for (Thread thread : mine.threads) {
            if (mine.idle.containsKey(thread)) continue;
            Thread.State state = thread.getState();
            if (state == Thread.State.TERMINATED) continue;
            if (state != Thread.State.WAITING && state != Thread.State.BLOCKED && state != Thread.State.TIMED_WAITING) return false;
            parked.put(thread.getId(), thread);
        }
        if (parked.isEmpty()) return true;
        long[] ids = parked.keySet().stream().mapToLong(Long::longValue).toArray();
        Map<Long, Long> ownerOf = new HashMap<>();
        for (ThreadInfo info : jvm.getThreadInfo(ids)) {
            if (info == null) continue; // ended meanwhile
            Thread.State state = info.getThreadState();
            boolean parkedNow = state == Thread.State.WAITING || state == Thread.State.BLOCKED || state == Thread.State.TIMED_WAITING;
            if (!parkedNow || info.getLockOwnerId() < 0) return false; // running again, a lock just released, or no owner
            ownerOf.put(info.getThreadId(), info.getLockOwnerId());
        }
        Set<Long> idleIds = new HashSet<>();
        for (Thread thread : mine.idle.keySet()) idleIds.add(thread.getId());
        for (long id : ownerOf.keySet()) {
            long at = id;
            for (int depth = 0; ; depth++) {
                Long next = ownerOf.get(at);
                if (next == null || depth > 16) return false;
                if (idleIds.contains(next)) break;
                at = next;
            }
        }
        return true;
    }

    private Session mine() {
        Session own = owner.get();
        return own == null ? current : own;
    }

    /** Writes one line; the caller holds the lock, so lines keep the order of the decisions that made them. */
    private void write(Map<String, Object> message) {
        byte[] bytes = (Json.write(message) + "\n").getBytes(StandardCharsets.UTF_8);
        try {
            out.write(bytes);
            out.flush();
        } catch (IOException gone) {
            // the runner closed our stdout: it is ending us
        }
    }

    /** Logs a failure on stderr by its class and frames only: an exception's message may hold a token. */
    private static void report(String where, Throwable failure) {
        StringBuilder text = new StringBuilder("session-conformance kit: ").append(where).append(" failed: ")
                .append(failure.getClass().getName());
        for (StackTraceElement frame : failure.getStackTrace()) text.append("\n\tat ").append(frame);
        System.err.println(text);
    }
}
