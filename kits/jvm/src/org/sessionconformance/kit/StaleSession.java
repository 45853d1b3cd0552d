package org.sessionconformance.kit;

/**
 * What a thread of an ended case gets when it tries to reach the runner (an effect, a request, a wait) after a
 * {@code reset}: a new process would not have that thread, so it must send nothing and end. The host drops the
 * result of a command that ends with it.
 */
public final class StaleSession extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A new stale-session signal. */
    public StaleSession() { super("the case this thread served has ended (reset)"); }
}
