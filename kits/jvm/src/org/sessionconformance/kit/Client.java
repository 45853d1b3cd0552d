package org.sessionconformance.kit;

import java.util.Map;

/**
 * The client under test, as the host sees it: the adapter's glue. {@link Host#run} makes one per {@code hello}
 * (a new process, or each {@code reset}), so nothing of a case survives into the next.
 */
public interface Client {
    /**
     * Performs one command (launch, signIn, request, signOut, ...) on a thread of its own, as app code runs;
     * commands may overlap. Block on the host's effects ({@link Host#call}, {@link Host#sleep}, ...) or return a
     * {@link java.util.concurrent.CompletionStage}, which the host waits for (counted idle meanwhile).
     * @param command the command message: {@code id}, {@code command} and its fields
     * @return the result's {@code content} (a Map, or null for none), or a CompletionStage of it
     * @throws AppError for an error result; any other exception becomes an {@code internalError} result
     * @throws Exception anything else: an {@code internalError} result naming only the exception's class
     */
    Object perform(Map<String, Object> command) throws Exception;

    /**
     * The runner's {@code welcome}, before the first command: the clock, the seed, the world profile and, in
     * loopback mode, {@link Host#baseURL()}. Build HTTP clients here.
     * @param welcome the welcome message
     */
    default void welcome(Map<String, Object> welcome) {}

    /** A {@code reset} ends this client: cancel its calls and close its connections. The default does nothing. */
    default void close() {}
}
