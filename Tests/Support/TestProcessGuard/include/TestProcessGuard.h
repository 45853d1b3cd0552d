#ifndef TEST_PROCESS_GUARD_H
#define TEST_PROCESS_GUARD_H

/// Whether the guard of this test process is active: it was installed when the test binary loaded (Linux),
/// and kills every descendant of the test process when the process gets SIGINT, SIGTERM or SIGHUP, or when
/// its parent (`swift test`) goes away. See TestProcessGuard.c.
int test_process_guard_active(void);

#endif
