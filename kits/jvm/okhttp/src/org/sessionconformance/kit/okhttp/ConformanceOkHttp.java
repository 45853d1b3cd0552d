package org.sessionconformance.kit.okhttp;

import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.concurrent.TimeUnit;

import okhttp3.Interceptor;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.Response;
import org.sessionconformance.kit.Host;
import org.sessionconformance.kit.StaleSession;

/**
 * Loopback counting for OkHttp (3.x and 4.x): an application interceptor that names the command a request
 * serves ({@code X-Conformance-Cause}) and fails a request of an ended case before it connects, and a
 * <em>network</em> interceptor that counts every attempt OkHttp makes (its silent retries and the
 * {@code Authenticator}'s follow-ups included), with the host's request deadline per attempt, as OkHttp's own
 * timeouts are per attempt.
 */
public final class ConformanceOkHttp {
    private ConformanceOkHttp() {}

    /**
     * Adds both interceptors to a builder and, when the host has a {@link Host#requestTimeout}, turns OkHttp's
     * real-time timeouts off (the deadline is on the runner's clock). Add your own interceptors and
     * authenticator as usual; run asynchronous calls on {@code new Dispatcher(host.executor())}.
     * @param host the host
     * @param builder the client's builder
     * @return the builder
     */
    public static OkHttpClient.Builder install(Host host, OkHttpClient.Builder builder) {
        if (host.requestTimeout() > 0) {
            builder.connectTimeout(0, TimeUnit.SECONDS).readTimeout(0, TimeUnit.SECONDS)
                    .writeTimeout(0, TimeUnit.SECONDS).callTimeout(0, TimeUnit.SECONDS);
        }
        return builder.addInterceptor(causeAndCase(host)).addNetworkInterceptor(counting(host));
    }

    /**
     * The application interceptor: {@code X-Conformance-Cause} from the calling thread's command, and an
     * {@link IOException} for a call of an ended case (a thread left from before a {@code reset}).
     * @param host the host
     * @return the interceptor
     */
    public static Interceptor causeAndCase(Host host) {
        return chain -> {
            if (!host.isCurrent()) throw new IOException("the case this request served has ended");
            String cause = host.cause();
            Request request = chain.request();
            return chain.proceed(cause == null ? request : request.newBuilder().header("X-Conformance-Cause", cause).build());
        };
    }

    /**
     * The network interceptor: counts the attempt started before it goes out and finished when its response
     * headers arrived or it failed; the calling thread is idle meanwhile. With a deadline the attempt is tagged
     * ({@code X-Conformance-Request}); when the deadline passes first the host sends {@code abandon}, the call
     * is cancelled and the failure rethrown as the {@link SocketTimeoutException} OkHttp's own timeout throws.
     * @param host the host
     * @return the interceptor
     */
    public static Interceptor counting(Host host) {
        return chain -> {
            Host.Exchange exchange;
            try {
                exchange = host.startExchange(true, host.requestTimeout());
            } catch (StaleSession ended) {
                // A retry OkHttp makes on its own for a call of an ended case must not reach the next case's server.
                throw new IOException("the case this request served has ended");
            }
            Request request = chain.request();
            if (exchange.tag() != null) {
                request = request.newBuilder().header("X-Conformance-Request", exchange.tag()).build();
                exchange.onDeadline(chain.call()::cancel);
            }
            boolean answered = false;
            try {
                Response response = chain.proceed(request);
                answered = true;
                return response;
            } catch (IOException error) {
                if (exchange.abandoned()) throw new SocketTimeoutException("timeout (the request's deadline passed)");
                throw error;
            } finally {
                exchange.finished(answered);
            }
        };
    }
}
