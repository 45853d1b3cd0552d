package org.sessionconformance.kit;

/**
 * The runner's input broke protocol v1 (a line that is not a JSON object, a message without a known type, a
 * line over 1 MiB, a refused handshake). {@link Host#serve} prints the message on stderr and exits 2. The
 * message never quotes the input: a line may hold a token.
 */
public final class ProtocolError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong and where (the line's number) */
    public ProtocolError(String message) { super(message); }
}
