import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.InetSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;

import com.sun.net.httpserver.HttpServer;
import org.sessionconformance.kit.AppError;
import org.sessionconformance.kit.Client;
import org.sessionconformance.kit.Host;
import org.sessionconformance.kit.Json;
import org.sessionconformance.kit.ProtocolError;

/**
 * The JVM kit's tests, with no test framework: every public static method named test* runs in turn; each
 * prints PASS or FAIL with its name; the exit status is 1 when any failed. Run by kits/jvm/test.sh.
 *   java -cp KIT.jar:CLASSES KitTests [NAME...]
 */
public final class KitTests {
    static final String WELCOME = "{\"type\":\"welcome\",\"protocol\":1,\"seed\":\"42\",\"clock\":{\"wall\":1767225600.0,\"monotonic\":0.0}}";

    // ---- The harness: a host on pipes, the runner's side in the test.

    /** A host running on pipes; lines it writes arrive in `lines`. */
    static final class Wire implements AutoCloseable {
        final Host host;
        final PipedOutputStream toHost = new PipedOutputStream();
        final LinkedBlockingQueue<String> lines = new LinkedBlockingQueue<>();
        final AtomicReference<Throwable> ended = new AtomicReference<>();
        final Thread loop;

        Wire(Function<Host, Host> configure, java.util.function.Supplier<Client> clients) throws IOException {
            PipedInputStream in = new PipedInputStream(toHost, 1 << 16);
            OutputStream out = new OutputStream() {
                final ByteArrayOutputStream line = new ByteArrayOutputStream();

                @Override public synchronized void write(int b) {
                    if (b == '\n') {
                        lines.add(line.toString(StandardCharsets.UTF_8));
                        line.reset();
                    } else {
                        line.write(b);
                    }
                }
            };
            host = configure.apply(new Host(in, out));
            loop = new Thread(() -> {
                try {
                    host.run(clients);
                    ended.set(new RuntimeException("input ended"));
                } catch (Throwable failure) {
                    ended.set(failure);
                }
            }, "host-loop");
            loop.setDaemon(true);
            loop.start();
        }

        void send(String text) throws IOException {
            toHost.write(text.getBytes(StandardCharsets.UTF_8));
            toHost.flush();
        }

        void line(String json) throws IOException { send(json + "\n"); }

        Map<String, Object> next() throws InterruptedException {
            String line = lines.poll(5, TimeUnit.SECONDS);
            check(line != null, "no line from the host within 5 s" + (ended.get() == null ? "" : " (host ended: " + ended.get() + ")"));
            return Json.object(line);
        }

        String nextRaw() throws InterruptedException {
            String line = lines.poll(5, TimeUnit.SECONDS);
            check(line != null, "no line from the host within 5 s");
            return line;
        }

        Map<String, Object> next(String type) throws InterruptedException {
            Map<String, Object> message = next();
            check(type.equals(message.get("type")), "expected a " + type + ", got " + Json.write(message));
            return message;
        }

        void silentFor(long millis) throws InterruptedException {
            String line = lines.poll(millis, TimeUnit.MILLISECONDS);
            check(line == null, "expected nothing yet, got " + line);
        }

        /** The handshake: hello out, welcome in. */
        Map<String, Object> handshake(String welcome) throws Exception {
            Map<String, Object> hello = next("hello");
            line(welcome);
            return hello;
        }

        @Override public void close() throws IOException { toHost.close(); }
    }

    /** A client made of a function. */
    static Client client(ThrowingFunction perform) { return perform::apply; }

    interface ThrowingFunction {
        Object apply(Map<String, Object> command) throws Exception;
    }

    static void check(boolean condition, String message) {
        if (!condition) throw new AssertionError(message);
    }

    static void equal(Object expected, Object actual, String what) {
        if (expected == null ? actual != null : !expected.equals(actual)) {
            throw new AssertionError(what + ": expected " + expected + ", got " + actual);
        }
    }

    static String command(String id, String name) { return "{\"type\":\"command\",\"id\":\"" + id + "\",\"command\":\"" + name + "\"}"; }

    static String barrier(String id) { return "{\"type\":\"barrier\",\"id\":\"" + id + "\"}"; }

    // ---- Framing.

    static final String SCRIPT = WELCOME + "\n" + command("c1", "launch") + "\n" + barrier("b1") + "\n";

    static void framing(java.util.function.Function<String, List<String>> chunks) throws Exception {
        try (Wire wire = new Wire(h -> h, () -> client(c -> Json.map("state", "signedOut", "echo", "é€😀")))) {
            wire.next("hello");
            for (String chunk : chunks.apply(SCRIPT)) wire.send(chunk);
            Map<String, Object> result = wire.next("result");
            equal("c1", result.get("id"), "result id");
            equal("ok", result.get("outcome"), "outcome");
            equal("é€😀", Json.asMap(result.get("content")).get("echo"), "UTF-8 content");
            equal("b1", wire.next("barrier").get("id"), "barrier id");
        }
    }

    public static void testFramingByteByByte() throws Exception {
        framing(text -> {
            List<String> out = new ArrayList<>();
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            for (byte b : bytes) out.add(new String(new byte[] {b}, StandardCharsets.ISO_8859_1));
            return out;
        });
    }

    public static void testFramingWhole() throws Exception { framing(List::of); }

    public static void testFramingRandomChunks() throws Exception {
        Random random = new Random(7);
        for (int round = 0; round < 5; round++) {
            framing(text -> {
                List<String> out = new ArrayList<>();
                int at = 0;
                while (at < text.length()) {
                    int end = Math.min(text.length(), at + 1 + random.nextInt(40));
                    out.add(text.substring(at, end));
                    at = end;
                }
                return out;
            });
        }
    }

    // Byte-by-byte splits multi-byte UTF-8 characters; the ISO-8859-1 trick above cannot carry them, so send bytes.
    public static void testFramingSplitsMultibyteCharacters() throws Exception {
        try (Wire wire = new Wire(h -> h, () -> client(c -> Json.map("email", c.get("email"))))) {
            wire.next("hello");
            byte[] bytes = (WELCOME + "\n{\"type\":\"command\",\"id\":\"c1\",\"command\":\"signIn\",\"email\":\"zoë@exämple.com\",\"password\":\"x\"}\n")
                    .getBytes(StandardCharsets.UTF_8);
            for (byte b : bytes) {
                wire.toHost.write(b);
                wire.toHost.flush();
            }
            equal("zoë@exämple.com", Json.asMap(wire.next("result").get("content")).get("email"), "decoded across chunks");
        }
    }

    // ---- Barriers only when idle.

    public static void testBarrierWaitsForARunnableThread() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (Wire wire = new Wire(h -> h, () -> client(c -> {
            release.await(); // a wait the host cannot see: the thread counts as runnable
            return null;
        }))) {
            wire.handshake(WELCOME);
            wire.line(command("c1", "launch"));
            wire.line(barrier("b1"));
            wire.silentFor(300);
            release.countDown();
            equal("result", wire.next().get("type"), "the result first");
            equal("b1", wire.next("barrier").get("id"), "then the barrier");
        }
    }

    public static void testBarrierAnsweredWhileWaitingForAnEffectAndReplyResumes() throws Exception {
        try (Wire wire = new Wire(h -> h, () -> new Client() {
            @Override public Object perform(Map<String, Object> command) {
                Map<String, Object> reply = Host.class.cast(hostOf.get()).storage("get", "session", null, null);
                return Json.map("stored", reply.get("value"));
            }
        })) {
            hostOf.set(wire.host);
            wire.handshake(WELCOME);
            wire.line(command("c1", "launch"));
            wire.line(barrier("b1"));
            Map<String, Object> effect = wire.next("storage");
            equal("e1", effect.get("id"), "effect id");
            equal("get", effect.get("op"), "op");
            equal("b1", wire.next("barrier").get("id"), "barrier while the thread waits for the runner");
            wire.line("{\"type\":\"reply\",\"id\":\"e1\",\"value\":\"{}\"}");
            wire.line(barrier("b2"));
            Map<String, Object> result = wire.next("result");
            equal("{}", Json.asMap(result.get("content")).get("stored"), "the reply resumed the waiter");
            equal("b2", wire.next("barrier").get("id"), "barrier after the result");
        }
    }

    static final AtomicReference<Object> hostOf = new AtomicReference<>();

    public static void testBarrierCountsAThreadParkedOnALockOfAnIdleThreadIdle() throws Exception {
        ReentrantLock library = new ReentrantLock();
        AtomicReference<Host> host = new AtomicReference<>();
        try (Wire wire = new Wire(h -> h, () -> client(c -> {
            library.lock(); // held across the effect, as google-oauth-client's Credential does
            try {
                host.get().sleep(1);
                return Json.map("who", c.get("id"));
            } finally {
                library.unlock();
            }
        }))) {
            host.set(wire.host);
            wire.handshake(WELCOME);
            wire.line(command("c1", "request"));
            wire.line(barrier("b1"));
            equal("sleep", wire.next().get("type"), "c1 sleeps holding the lock");
            equal("b1", wire.next("barrier").get("id"), "barrier");
            wire.line(command("c2", "request"));
            wire.line(barrier("b2"));
            equal("b2", wire.next("barrier").get("id"), "c2 parked on the lock of an idle thread is idle");
            wire.line("{\"type\":\"reply\",\"id\":\"e1\"}");
            wire.line(barrier("b3"));
            equal("c1", wire.next("result").get("id"), "c1 done");
            equal("sleep", wire.next().get("type"), "c2 got the lock and sleeps");
            equal("b3", wire.next("barrier").get("id"), "barrier");
        }
    }

    public static void testBarrierWaitsForExecutorTasksAndFutureCallbacks() throws Exception {
        AtomicReference<Host> host = new AtomicReference<>();
        try (Wire wire = new Wire(h -> h, () -> client(c -> {
            Host h = host.get();
            CompletableFuture<Object> done = new CompletableFuture<>();
            h.executor().execute(() -> {
                long until = System.nanoTime() + 200_000_000L;
                while (System.nanoTime() < until) Thread.onSpinWait(); // runnable work on a pool thread
                h.sleepAsync(2).thenApply(reply -> Json.map("slept", true)).thenAccept(done::complete);
            });
            return done;
        }))) {
            host.set(wire.host);
            wire.handshake(WELCOME);
            wire.line(command("c1", "launch"));
            wire.line(barrier("b1"));
            Map<String, Object> sleep = wire.next("sleep");
            equal(2L, sleep.get("seconds"), "seconds");
            equal("b1", wire.next("barrier").get("id"), "barrier after the task sent its effect");
            wire.line("{\"type\":\"reply\",\"id\":\"e1\"}");
            wire.line(barrier("b2"));
            equal(Boolean.TRUE, Json.asMap(wire.next("result").get("content")).get("slept"), "the callback chain ran");
            equal("b2", wire.next("barrier").get("id"), "barrier");
        }
    }

    public static void testEffectJoinCountsIdle() throws Exception {
        AtomicReference<Host> host = new AtomicReference<>();
        try (Wire wire = new Wire(h -> h, () -> client(c -> host.get().preferencesAsync("get", "k", null).join().get("value")))) {
            host.set(wire.host);
            wire.handshake(WELCOME);
            wire.line(command("c1", "launch"));
            wire.line(barrier("b1"));
            equal("preferences", wire.next().get("type"), "effect");
            equal("b1", wire.next("barrier").get("id"), "join() on an effect counts the thread idle");
            wire.line("{\"type\":\"reply\",\"id\":\"e1\",\"value\":\"v\"}");
            equal("v", wire.next("result").get("content"), "value");
        }
    }

    public static void testAppErrorAndInternalError() throws Exception {
        try (Wire wire = new Wire(h -> h, () -> client(c -> {
            if (c.get("id").equals("c1")) throw new AppError("invalidInput", "bad email", true);
            throw new IllegalStateException("secret-token-value");
        }))) {
            wire.handshake(WELCOME);
            wire.line(command("c1", "signIn"));
            Map<String, Object> first = wire.next("result");
            equal("error", first.get("outcome"), "outcome");
            equal(Json.map("code", "invalidInput", "message", "bad email", "definite", true), first.get("error"), "error");
            wire.line(command("c2", "request"));
            String second = wire.nextRaw();
            check(second.contains("internalError") && !second.contains("secret-token-value"), "an internal error names no message: " + second);
        }
    }

    // ---- The deadline recipe (message mode).

    static Wire deadlineWire() throws Exception {
        AtomicReference<Host> host = new AtomicReference<>();
        Wire wire = new Wire(h -> h, () -> client(c -> {
            Map<String, Object> reply = host.get().httpAsync("POST", "/auth/refresh", null, Json.map("refresh_token", "x"), 30).join();
            return reply.containsKey("failure") ? Json.map("failure", reply.get("failure"), "deadline", reply.get("deadline"))
                    : Json.map("status", Json.asMap(reply.get("response")).get("status"));
        }));
        host.set(wire.host);
        wire.handshake(WELCOME);
        wire.line(command("c1", "request"));
        Map<String, Object> http = wire.next("http");
        equal("e1", http.get("id"), "the request's id");
        equal("c1", http.get("cause"), "cause");
        Map<String, Object> sleep = wire.next("sleep");
        equal("e2", sleep.get("id"), "the deadline's id");
        equal(30L, sleep.get("seconds"), "the deadline");
        return wire;
    }

    static final String ANSWER = "{\"type\":\"reply\",\"id\":\"e1\",\"response\":{\"status\":200,\"headers\":{},\"body\":{}}}";
    static final String WAKE = "{\"type\":\"reply\",\"id\":\"e2\"}";

    public static void testDeadlineRequestAnsweredFirst() throws Exception {
        try (Wire wire = deadlineWire()) {
            wire.line(ANSWER);
            equal("{\"type\":\"abandon\",\"id\":\"e2\",\"reason\":\"answered\"}", wire.nextRaw(), "the sleep abandoned");
            equal(200L, Json.asMap(wire.next("result").get("content")).get("status"), "the response");
        }
    }

    public static void testDeadlinePassesFirst() throws Exception {
        try (Wire wire = deadlineWire()) {
            wire.line(WAKE);
            equal("{\"type\":\"abandon\",\"id\":\"e1\",\"reason\":\"timeout\"}", wire.nextRaw(), "the request abandoned");
            Map<String, Object> content = Json.asMap(wire.next("result").get("content"));
            equal(Json.map("code", "timeout", "definite", false), content.get("failure"), "a runner timeout's failure");
            equal(Boolean.TRUE, content.get("deadline"), "marked as the deadline's");
        }
    }

    public static void testDeadlineSameRoundResponseFirst() throws Exception {
        try (Wire wire = deadlineWire()) {
            wire.send(ANSWER + "\n" + WAKE + "\n" + barrier("b1") + "\n");
            equal("{\"type\":\"abandon\",\"id\":\"e2\",\"reason\":\"answered\"}", wire.nextRaw(), "the first read wins");
            equal(200L, Json.asMap(wire.next("result").get("content")).get("status"), "the response");
            equal("b1", wire.next("barrier").get("id"), "the late sleep reply is dropped");
        }
    }

    public static void testDeadlineSameRoundDeadlineFirst() throws Exception {
        try (Wire wire = deadlineWire()) {
            wire.send(WAKE + "\n" + ANSWER + "\n" + barrier("b1") + "\n");
            equal("{\"type\":\"abandon\",\"id\":\"e1\",\"reason\":\"timeout\"}", wire.nextRaw(), "the first read wins");
            equal("timeout", Json.asMap(Json.asMap(wire.next("result").get("content")).get("failure")).get("code"), "timeout");
            equal("b1", wire.next("barrier").get("id"), "the late response is dropped");
        }
    }

    public static void testAbandonASleep() throws Exception {
        AtomicReference<Host> host = new AtomicReference<>();
        try (Wire wire = new Wire(h -> h, () -> client(c -> {
            Host.Effect<Map<String, Object>> backoff = host.get().sleepAsync(60);
            host.get().abandon(backoff, "cancelled");
            return Json.map("cancelled", backoff.isCancelled());
        }))) {
            host.set(wire.host);
            wire.handshake(WELCOME);
            wire.line(command("c1", "online"));
            equal("sleep", wire.next().get("type"), "sleep");
            equal("{\"type\":\"abandon\",\"id\":\"e1\",\"reason\":\"cancelled\"}", wire.nextRaw(), "abandon");
            equal(Boolean.TRUE, Json.asMap(wire.next("result").get("content")).get("cancelled"), "cancelled");
        }
    }

    // ---- Reset and hello.

    public static void testResetStartsANewClientAndDropsTheOldCase() throws Exception {
        AtomicInteger made = new AtomicInteger();
        AtomicInteger closed = new AtomicInteger();
        AtomicReference<Host> host = new AtomicReference<>();
        try (Wire wire = new Wire(h -> h, () -> {
            int number = made.incrementAndGet();
            return new Client() {
                @Override public Object perform(Map<String, Object> command) {
                    host.get().storage("get", "k", null, null);
                    return Json.map("client", number);
                }

                @Override public void close() { closed.incrementAndGet(); }
            };
        })) {
            host.set(wire.host);
            wire.handshake(WELCOME);
            wire.line(command("c1", "launch"));
            equal("e1", wire.next("storage").get("id"), "first case's effect");
            wire.line("{\"type\":\"reset\"}");
            Map<String, Object> hello = wire.next("hello");
            equal(1L, hello.get("protocol"), "hello again");
            equal(2, made.get(), "a new client");
            equal(1, closed.get(), "the old one closed");
            wire.line(WELCOME);
            wire.line("{\"type\":\"reply\",\"id\":\"e1\",\"value\":null}"); // the old case's id: nobody waits for it
            wire.line(command("c1", "launch"));
            Map<String, Object> effect = wire.next("storage");
            equal("e1", effect.get("id"), "ids start again, as in a new process");
            wire.line("{\"type\":\"reply\",\"id\":\"e1\",\"value\":null}");
            Map<String, Object> result = wire.next("result");
            equal(2L, Json.asMap(result.get("content")).get("client"), "the new client answered; the old thread sent nothing");
            wire.line(barrier("b1"));
            equal("b1", wire.next("barrier").get("id"), "barrier");
        }
    }

    public static void testHelloContents() throws Exception {
        try (Wire wire = new Wire(h -> h.implementation("toy", "0.1.0", "Kotlin", "jvm-17").capabilities("background-refresh")
                .refreshTriggers("unauthorized", "expiry").loopback(true)
                .helloField("offlinePolicy", Json.map("cachedResources", List.of("news"))), () -> client(c -> null))) {
            Map<String, Object> hello = wire.next("hello");
            equal(1L, hello.get("protocol"), "protocol");
            equal(Json.map("name", "toy", "version", "0.1.0", "language", "Kotlin", "platform", "jvm-17"), hello.get("implementation"), "implementation");
            equal(List.of("background-refresh", "reset"), hello.get("capabilities"), "capabilities, reset added");
            equal(List.of("unauthorized", "expiry"), hello.get("refreshTriggers"), "refreshTriggers");
            equal("loopback", hello.get("http"), "http");
            equal(Json.map("cachedResources", List.of("news")), hello.get("offlinePolicy"), "extra field");
        }
        try (Wire wire = new Wire(h -> h.declareReset(false), () -> client(c -> null))) {
            Map<String, Object> hello = wire.next("hello");
            equal(List.of(), hello.get("capabilities"), "no reset when not declared");
            check(!hello.containsKey("refreshTriggers") && !hello.containsKey("http"), "message mode, no triggers: " + hello);
        }
    }

    // ---- Loopback counting through java.net.http.

    static HttpServer server(AtomicReference<String> cause, AtomicReference<String> tag, CountDownLatch hold) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            cause.set(exchange.getRequestHeaders().getFirst("X-Conformance-Cause"));
            tag.set(exchange.getRequestHeaders().getFirst("X-Conformance-Request"));
            if (hold != null) {
                try {
                    hold.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] body = "{\"contentId\":\"content-1\"}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("content-type", "application/json");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        return server;
    }

    static String loopbackWelcome(HttpServer server) {
        return "{\"type\":\"welcome\",\"protocol\":1,\"seed\":\"1\",\"clock\":{\"wall\":1767225600.0,\"monotonic\":0.0},"
                + "\"http\":{\"baseURL\":\"http://127.0.0.1:" + server.getAddress().getPort() + "\"}}";
    }

    public static void testLoopbackCountingThroughHttpClient() throws Exception {
        AtomicReference<String> cause = new AtomicReference<>();
        AtomicReference<String> tag = new AtomicReference<>();
        HttpServer server = server(cause, tag, null);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        AtomicReference<Host> host = new AtomicReference<>();
        try (Wire wire = new Wire(h -> h.loopback(true), () -> client(c -> {
            Host h = host.get();
            HttpResponse<String> response = h.send(http, HttpRequest.newBuilder(java.net.URI.create(h.baseURL() + "/resources/inbox")).build(),
                    HttpResponse.BodyHandlers.ofString());
            return Json.map("status", response.statusCode(), "body", Json.object(response.body()));
        }))) {
            host.set(wire.host);
            wire.handshake(loopbackWelcome(server));
            wire.line(command("c1", "request"));
            wire.line("{\"type\":\"barrier\",\"id\":\"b1\",\"httpAnswered\":1}");
            Map<String, Object> result = wire.next("result");
            equal(200L, Json.asMap(result.get("content")).get("status"), "status");
            Map<String, Object> answer = wire.next("barrier");
            equal(1L, answer.get("httpStarted"), "httpStarted");
            equal("c1", cause.get(), "X-Conformance-Cause");
            equal(null, tag.get(), "no tag without a deadline");
        } finally {
            server.stop(0);
        }
    }

    public static void testLoopbackDeadlineThroughHttpClient() throws Exception {
        AtomicReference<String> cause = new AtomicReference<>();
        AtomicReference<String> tag = new AtomicReference<>();
        CountDownLatch hold = new CountDownLatch(1);
        HttpServer server = server(cause, tag, hold);
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        AtomicReference<Host> host = new AtomicReference<>();
        try (Wire wire = new Wire(h -> h.loopback(true).requestTimeout(5), () -> client(c -> {
            Host h = host.get();
            try {
                h.send(http, HttpRequest.newBuilder(java.net.URI.create(h.baseURL() + "/auth/refresh")).build(), HttpResponse.BodyHandlers.ofString());
                return Json.map("answered", true);
            } catch (HttpTimeoutException timeout) {
                throw new AppError("timeout", "the deadline passed", false);
            }
        }))) {
            host.set(wire.host);
            wire.handshake(loopbackWelcome(server));
            wire.line(command("c1", "request"));
            Map<String, Object> sleep = wire.next("sleep");
            equal("e1", sleep.get("id"), "the deadline's sleep");
            equal(5L, sleep.get("seconds"), "seconds");
            wire.line("{\"type\":\"barrier\",\"id\":\"b1\",\"httpAnswered\":0}");
            equal(1L, wire.next("barrier").get("httpStarted"), "started");
            long until = System.nanoTime() + 5_000_000_000L;
            while (tag.get() == null && System.nanoTime() < until) Thread.sleep(10);
            equal("r1", tag.get(), "X-Conformance-Request");
            wire.line("{\"type\":\"reply\",\"id\":\"e1\"}");
            wire.line("{\"type\":\"barrier\",\"id\":\"b2\",\"httpAnswered\":0}");
            equal("{\"type\":\"abandon\",\"id\":\"r1\",\"reason\":\"timeout\"}", wire.nextRaw(), "abandon of the tag");
            Map<String, Object> result = wire.next("result");
            equal("timeout", Json.asMap(result.get("error")).get("code"), "the client saw a timeout");
            equal(1L, wire.next("barrier").get("httpStarted"), "barrier; the abandoned request is not counted finished");
        } finally {
            hold.countDown();
            server.stop(0);
        }
    }

    public static void testLoopbackOkHttp() throws Exception {
        Class<?> tests;
        try {
            tests = Class.forName("OkHttpTests");
        } catch (ClassNotFoundException missing) {
            if ("1".equals(System.getenv("SESSION_CONFORMANCE_REQUIRE_TOOLS"))) {
                throw new AssertionError("OkHttp's jar is missing and SESSION_CONFORMANCE_REQUIRE_TOOLS=1");
            }
            throw new Skip("OkHttp's jar was not found (set SESSION_CONFORMANCE_REQUIRE_TOOLS=1 to fail instead)");
        }
        try {
            tests.getMethod("run").invoke(null);
        } catch (java.lang.reflect.InvocationTargetException failure) {
            if (failure.getCause() instanceof Exception) throw (Exception) failure.getCause();
            throw (Error) failure.getCause();
        }
    }

    // ---- Garbage input.

    static ProtocolError runOn(String input) throws Exception {
        InputStream in = new java.io.ByteArrayInputStream(input.getBytes(StandardCharsets.ISO_8859_1));
        Host host = new Host(in, OutputStream.nullOutputStream());
        try {
            host.run(() -> client(c -> null));
        } catch (ProtocolError error) {
            return error;
        }
        throw new AssertionError("no protocol error for input of " + input.length() + " characters");
    }

    public static void testGarbageInputGivesAClearError() throws Exception {
        String secret = "at-secret-1234";
        ProtocolError notJson = runOn("{\"type\":\"welcome\"}\nnot json " + secret + "\n");
        check(notJson.getMessage().startsWith("line 2 is not a JSON object"), notJson.getMessage());
        check(!notJson.getMessage().contains(secret), "the error quotes the input: " + notJson.getMessage());
        check(runOn("[1,2]\n").getMessage().contains("expected a JSON object"), "an array");
        check(runOn("{\"id\":\"x\"}\n").getMessage().contains("no \"type\""), "no type");
        check(runOn("{\"type\":\"teleport\",\"token\":\"" + secret + "\"}\n").getMessage().contains("unknown message type"), "unknown type");
        check(runOn("{\"type\":\"command\"}\n").getMessage().contains("command without"), "a command without id");
        check(runOn("\u00ff\u00fe\n").getMessage().contains("not UTF-8"), "not UTF-8");
        check(runOn("{\"type\":\"welcome\",\"x\":" + "[".repeat(100000) + "\n").getMessage().contains("nesting deeper"), "deep nesting");
        check(runOn("{\"type\":\"error\",\"code\":\"protocol-version\"}\n").getMessage().contains("protocol-version"), "a refused handshake");
        StringBuilder huge = new StringBuilder("{\"type\":\"clock\",\"pad\":\"");
        while (huge.length() <= Host.MAX_LINE) huge.append("xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
        check(runOn(huge.toString()).getMessage().contains("longer than 1 MiB"), "a line over 1 MiB");
    }

    public static void testServeExitsTwoOnGarbage() throws Exception {
        String java = System.getProperty("java.home") + "/bin/java";
        Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "KitTests$EchoAdapter").start();
        process.getOutputStream().write("garbage with a token at-secret-1234\n".getBytes(StandardCharsets.UTF_8));
        process.getOutputStream().close();
        check(process.waitFor(30, TimeUnit.SECONDS), "the adapter did not exit");
        String stdout = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        equal(2, process.exitValue(), "exit status");
        check(stdout.startsWith("{\"type\":\"hello\"") && !stdout.contains("stray"), "stdout holds the protocol only: " + stdout);
        check(stderr.contains("session-conformance kit: line 1 is not a JSON object"), "stderr: " + stderr);
        check(stderr.contains("stray") && !stderr.contains("at-secret-1234"), "stderr: " + stderr);
    }

    /** A minimal adapter on stdin/stdout, for the exit-status test. */
    public static final class EchoAdapter {
        public static void main(String[] arguments) {
            Host host = new Host();
            System.out.println("stray"); // goes to stderr: the host pointed System.out there
            host.serve(() -> client(c -> null));
        }
    }

    // ---- The runner.

    static final class Skip extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Skip(String why) { super(why); }
    }

    public static void main(String[] arguments) throws Exception {
        List<String> only = List.of(arguments);
        int passed = 0;
        int failed = 0;
        int skipped = 0;
        Method[] methods = KitTests.class.getDeclaredMethods();
        java.util.Arrays.sort(methods, java.util.Comparator.comparing(Method::getName));
        for (Method method : methods) {
            if (!method.getName().startsWith("test") || !Modifier.isStatic(method.getModifiers())) continue;
            if (!only.isEmpty() && !only.contains(method.getName())) continue;
            hostOf.set(null);
            long started = System.nanoTime();
            try {
                method.invoke(null);
                passed += 1;
                System.out.printf("PASS %s (%d ms)%n", method.getName(), (System.nanoTime() - started) / 1_000_000);
            } catch (java.lang.reflect.InvocationTargetException thrown) {
                Throwable failure = thrown.getCause();
                if (failure instanceof Skip) {
                    skipped += 1;
                    System.out.printf("SKIP %s: %s%n", method.getName(), failure.getMessage());
                } else {
                    failed += 1;
                    System.out.printf("FAIL %s: %s%n", method.getName(), failure);
                    failure.printStackTrace(System.out);
                }
            }
        }
        System.out.printf("%d passed, %d failed, %d skipped%n", passed, failed, skipped);
        System.out.flush();
        Runtime.getRuntime().halt(failed == 0 && passed > 0 ? 0 : 1);
    }
}
