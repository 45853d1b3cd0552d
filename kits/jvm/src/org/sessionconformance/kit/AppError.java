package org.sessionconformance.kit;

/**
 * A command's failure, answered as {@code {"type":"result","outcome":"error","error":{code, message, definite}}}.
 * Throw it from {@link Client#perform}. The message is shown in reports: never put a token in it.
 */
public class AppError extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String code;
    private final boolean definite;

    /**
     * @param code a stable code of the client's own ({@code invalidInput} is the protocol's, for refused input)
     * @param message what happened, for people
     * @param definite whether the outcome is known (false: the server may have acted, as after a timeout)
     */
    public AppError(String code, String message, boolean definite) {
        super(message);
        this.code = code;
        this.definite = definite;
    }

    /** @return the error's code */
    public String code() { return code; }

    /** @return whether the outcome is known */
    public boolean definite() { return definite; }
}
