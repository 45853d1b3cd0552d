// The test process's guard: a killed `swift test` leaves no process behind.
//
// Tests start processes: adapters (AdapterProcess, each in a process group of its own, so a Ctrl-C on the
// terminal does not reach them), the CLI, python3, Chromium (Foundation's Process). When the test run is
// killed, they must die with it. PR_SET_PDEATHSIG cannot do this: posix_spawn, which starts the adapters,
// cannot set it in the child, and it fires when the *thread* that started the child ends, which a pool thread
// may do at any time in the middle of a test. So the test process watches instead, from a thread of its own
// started when the test binary loads, before any test runs:
//
// - SIGINT, SIGTERM and SIGHUP wake the thread (the handler only writes a byte to a pipe); it kills every
//   descendant of the test process, each with its process group, and then the process dies by the signal.
// - Every 250 ms it checks that its parent is still the one that started it; when `swift test` is gone
//   (killed, even with SIGKILL) the process is re-parented, and the thread kills every descendant and exits.
//
// What it cannot cover: SIGKILL sent to the test process itself (no handler runs; adapters that read their
// stdin still end at its end of file), and a descendant that left with setsid and was re-parented to init
// before the sweep.
#if defined(__linux__)
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>
#endif

#include "TestProcessGuard.h"

#if defined(__linux__)

static int wake[2] = {-1, -1};
static pid_t first_parent = 0;
static int active = 0;

static void on_signal(int number) {
    int saved = errno;
    unsigned char byte = (unsigned char)number;
    ssize_t ignored = write(wake[1], &byte, 1);
    (void)ignored;
    errno = saved;
}

/// The parent and state of `pid` from /proc/PID/stat; 0 when it cannot be read.
static int read_stat(pid_t pid, pid_t *parent, char *state) {
    char path[64], text[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int file = open(path, O_RDONLY | O_CLOEXEC);
    if (file < 0) return 0;
    ssize_t length = read(file, text, sizeof text - 1);
    close(file);
    if (length <= 0) return 0;
    text[length] = 0;
    // After the command name in parentheses, which may itself hold spaces and parentheses: " S PPID ...".
    char *close_paren = strrchr(text, ')');
    if (close_paren == NULL) return 0;
    int parent_id = 0;
    if (sscanf(close_paren + 1, " %c %d", state, &parent_id) != 2) return 0;
    *parent = (pid_t)parent_id;
    return 1;
}

/// SIGKILL to every living descendant of this process and to the process group each leads; returns how
/// many were living. Zombies (killed, not yet reaped) are skipped but their children are followed.
static int kill_descendants_once(void) {
    size_t capacity = 1024, count = 0;
    pid_t *pids = malloc(capacity * sizeof *pids), *parents = malloc(capacity * sizeof *parents);
    char *states = malloc(capacity);
    DIR *proc = opendir("/proc");
    if (pids == NULL || parents == NULL || states == NULL || proc == NULL) {
        free(pids); free(parents); free(states);
        if (proc != NULL) closedir(proc);
        return 0;
    }
    struct dirent *entry;
    while ((entry = readdir(proc)) != NULL) {
        char *end;
        long pid = strtol(entry->d_name, &end, 10);
        if (*end != 0 || pid <= 0) continue;
        if (count == capacity) {
            capacity *= 2;
            pid_t *more_pids = realloc(pids, capacity * sizeof *pids);
            if (more_pids != NULL) pids = more_pids;
            pid_t *more_parents = realloc(parents, capacity * sizeof *parents);
            if (more_parents != NULL) parents = more_parents;
            char *more_states = realloc(states, capacity);
            if (more_states != NULL) states = more_states;
            if (more_pids == NULL || more_parents == NULL || more_states == NULL) break;
        }
        if (read_stat((pid_t)pid, &parents[count], &states[count])) pids[count++] = (pid_t)pid;
    }
    closedir(proc);
    // Mark the descendants: a process is one when its parent is this process or a marked one.
    char *marked = calloc(count > 0 ? count : 1, 1);
    int living = 0;
    if (marked != NULL) {
        pid_t self = getpid();
        for (int changed = 1; changed;) {
            changed = 0;
            for (size_t index = 0; index < count; index++) {
                if (marked[index]) continue;
                int descends = parents[index] == self;
                for (size_t other = 0; !descends && other < count; other++) {
                    descends = marked[other] && pids[other] == parents[index];
                }
                if (descends) { marked[index] = 1; changed = 1; }
            }
        }
        for (size_t index = 0; index < count; index++) {
            if (!marked[index] || states[index] == 'Z' || states[index] == 'X') continue;
            living++;
            if (getpgid(pids[index]) == pids[index]) killpg(pids[index], SIGKILL);
            kill(pids[index], SIGKILL);
        }
        free(marked);
    }
    free(pids); free(parents); free(states);
    return living;
}

static void kill_descendants(void) {
    // A descendant may fork while it is being killed: sweep until none is left living.
    for (int round = 0; round < 20 && kill_descendants_once() > 0; round++) usleep(20000);
}

static void *watch(void *unused) {
    (void)unused;
    for (;;) {
        struct pollfd wakeup = {.fd = wake[0], .events = POLLIN, .revents = 0};
        int number = 0;
        if (poll(&wakeup, 1, 250) > 0) {
            unsigned char byte = 0;
            if (read(wake[0], &byte, 1) == 1) number = byte;
        } else if (getppid() != first_parent) {
            number = SIGHUP;
        }
        if (number == 0) continue;
        kill_descendants();
        signal(number, SIG_DFL);
        sigset_t only;
        sigemptyset(&only);
        sigaddset(&only, number);
        pthread_sigmask(SIG_UNBLOCK, &only, NULL);
        raise(number);
        _exit(128 + number);
    }
    return NULL;
}

__attribute__((constructor)) static void install_test_process_guard(void) {
    if (pipe2(wake, O_CLOEXEC) != 0) return;
    fcntl(wake[1], F_SETFL, O_NONBLOCK);
    first_parent = getppid();
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    // The watcher takes no signal itself, so they are delivered to the threads that run tests.
    sigset_t all, previous;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &previous);
    pthread_t thread;
    int started = pthread_create(&thread, &attributes, watch, NULL) == 0;
    pthread_sigmask(SIG_SETMASK, &previous, NULL);
    pthread_attr_destroy(&attributes);
    if (!started) return;
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    int handled[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t index = 0; index < sizeof handled / sizeof handled[0]; index++) {
        struct sigaction current;
        // A signal the test run was started with ignored (nohup, a background job) stays ignored.
        if (sigaction(handled[index], NULL, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        sigaction(handled[index], &action, NULL);
    }
    active = 1;
}

int test_process_guard_active(void) { return active; }

#else

int test_process_guard_active(void) { return 0; }

#endif
