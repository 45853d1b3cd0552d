import Testing

/// Every adapter process test, one at a time: they start real processes on a machine with few cores,
/// some measure timeouts, and some count the open file descriptors of the whole test process. A test
/// that hangs (a deinit that never returns) fails after two minutes instead of stalling the run.
@Suite("AdapterProcess", .serialized, .timeLimit(.minutes(2)))
struct AdapterProcessTests {}
