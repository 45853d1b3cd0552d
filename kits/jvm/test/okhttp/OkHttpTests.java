import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import com.sun.net.httpserver.HttpServer;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.sessionconformance.kit.AppError;
import org.sessionconformance.kit.Host;
import org.sessionconformance.kit.Json;
import org.sessionconformance.kit.okhttp.ConformanceOkHttp;

/** Loopback counting through OkHttp's network interceptor; compiled only when OkHttp's jar is found. */
public final class OkHttpTests {
    public static void run() throws Exception {
        AtomicReference<String> cause = new AtomicReference<>();
        AtomicReference<String> tag = new AtomicReference<>();
        CountDownLatch hold = new CountDownLatch(1);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            cause.set(exchange.getRequestHeaders().getFirst("X-Conformance-Cause"));
            tag.set(exchange.getRequestHeaders().getFirst("X-Conformance-Request"));
            if (exchange.getRequestURI().getPath().equals("/held")) {
                try {
                    hold.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            byte[] body = "{\"ok\":true}".getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.setExecutor(java.util.concurrent.Executors.newCachedThreadPool());
        server.start();
        AtomicReference<Host> host = new AtomicReference<>();
        AtomicReference<OkHttpClient> okhttp = new AtomicReference<>();
        try (KitTests.Wire wire = new KitTests.Wire(h -> h.loopback(true).requestTimeout(10), () -> KitTests.client(c -> {
            Host h = host.get();
            if (okhttp.get() == null) okhttp.set(ConformanceOkHttp.install(h, new OkHttpClient.Builder()).build());
            String path = (String) c.get("resource");
            try (Response response = okhttp.get().newCall(new Request.Builder().url(h.baseURL() + path).build()).execute()) {
                return Json.map("status", response.code(), "body", Json.object(response.body().string()));
            } catch (java.net.SocketTimeoutException timeout) {
                throw new AppError("timeout", "deadline", false);
            }
        }))) {
            host.set(wire.host);
            wire.handshake(KitTests.loopbackWelcome(server));
            wire.line("{\"type\":\"command\",\"id\":\"c1\",\"command\":\"request\",\"resource\":\"/quick\"}");
            Map<String, Object> sleep = wire.next("sleep");
            KitTests.equal("e1", sleep.get("id"), "a deadline per attempt");
            wire.line("{\"type\":\"barrier\",\"id\":\"b1\",\"httpAnswered\":1}");
            KitTests.equal("{\"type\":\"abandon\",\"id\":\"e1\",\"reason\":\"answered\"}", wire.nextRaw(), "the deadline abandoned");
            KitTests.equal(200L, Json.asMap(wire.next("result").get("content")).get("status"), "status");
            KitTests.equal(1L, wire.next("barrier").get("httpStarted"), "httpStarted");
            KitTests.equal("c1", cause.get(), "X-Conformance-Cause");
            KitTests.equal("r1", tag.get(), "X-Conformance-Request");

            wire.line("{\"type\":\"command\",\"id\":\"c2\",\"command\":\"request\",\"resource\":\"/held\"}");
            KitTests.equal("e2", wire.next("sleep").get("id"), "the second attempt's deadline");
            wire.line("{\"type\":\"barrier\",\"id\":\"b2\",\"httpAnswered\":1}");
            KitTests.equal(2L, wire.next("barrier").get("httpStarted"), "started while held");
            wire.line("{\"type\":\"reply\",\"id\":\"e2\"}");
            wire.line("{\"type\":\"barrier\",\"id\":\"b3\",\"httpAnswered\":1}");
            KitTests.equal("{\"type\":\"abandon\",\"id\":\"r2\",\"reason\":\"timeout\"}", wire.nextRaw(), "the attempt abandoned");
            KitTests.equal("timeout", Json.asMap(wire.next("result").get("error")).get("code"), "SocketTimeoutException");
            KitTests.equal(2L, wire.next("barrier").get("httpStarted"), "barrier: the abandoned attempt is not counted finished");
        } finally {
            hold.countDown();
            server.stop(0);
        }
    }
}
