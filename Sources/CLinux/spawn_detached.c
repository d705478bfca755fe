/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* Starts a program as a process of its own (the agent's launcher: an app
 * the person chose to continue in). Double fork: the agent's child starts a
 * new session, forks the program and exits at once, so the agent reaps that
 * child before returning and never holds a zombie; the program is
 * re-parented to the nearest subreaper (systemd --user) or init.
 *
 * Between fork and execve the children run only async-signal-safe system
 * calls (the parent is multithreaded): everything that allocates (argv,
 * envp, the /dev/null descriptor) is ready before the first fork. The second
 * fork is a raw clone so no pthread_atfork handler runs in a child whose
 * locks may be held by threads that no longer exist there. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "clinux.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/* What the children tell the parent through the report pipe. */
enum { REPORT_PID = 1, REPORT_ERRNO = 2 };
struct report { int kind; int value; };

static void send_report(int fd, int kind, int value)
{
    struct report r = { kind, value };
    ssize_t n;
    do { n = write(fd, &r, sizeof r); } while (n < 0 && errno == EINTR);
}

/* In the program's process, before execve: default signal handling, an
 * empty mask, stdio on /dev/null, no inherited descriptor but 0-2 (a
 * socket-activated agent's listening socket is not close-on-exec). */
static void prepare_program(int devnull, int report_fd, const char *directory)
{
    struct sigaction dfl;
    sigset_t none;
    int sig, fd;
    for (sig = 1; sig < 65; sig++) {
        if (sig == SIGKILL || sig == SIGSTOP) continue;
        dfl.sa_handler = SIG_DFL;
        dfl.sa_flags = 0;
        sigemptyset(&dfl.sa_mask);
        sigaction(sig, &dfl, NULL); /* EINVAL for glibc's reserved ones */
    }
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (fd = 0; fd < 3; fd++) {
        if (dup2(devnull, fd) < 0) { send_report(report_fd, REPORT_ERRNO, errno); _exit(127); }
    }
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        for (fd = 3; fd < 4096; fd++) {
            if (fd != report_fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
    }
    if (directory && chdir(directory) != 0) { send_report(report_fd, REPORT_ERRNO, errno); _exit(127); }
}

/* In the middle process, at once: every descriptor but 0-2 and the two it
 * passes on is closed. It never execs, so close-on-exec does nothing for
 * it, and it would otherwise hold the copies of every descriptor the
 * agent's other threads had open (a file being written among them) until
 * it exits. */
static void close_range_or_loop(unsigned first, unsigned last)
{
    unsigned fd;
    if (first > last) return;
    if (syscall(SYS_close_range, first, last, 0U) == 0) return;
    for (fd = first; fd <= last && fd < 4096; fd++) close((int)fd);
}

static void keep_only(int a, int b)
{
    unsigned lo = (unsigned)(a < b ? a : b), hi = (unsigned)(a < b ? b : a);
    close_range_or_loop(3U, lo - 1U);
    close_range_or_loop(lo + 1U, hi - 1U);
    close_range_or_loop(hi + 1U, ~0U);
}

/* execve, again while the file is busy (ETXTBSY): someone still holds it
 * open for writing, an installer finishing it or a process forked while a
 * writer had it open (its copy of the descriptor lasts until it execs or
 * exits, close-on-exec or not). That passes within moments: up to 10 more
 * tries, 1 ms apart doubling to 200 ms (under 0.7 s in all); poll is the
 * async-signal-safe sleep. Returns only when execve failed for good. */
enum { EXEC_BUSY_RETRIES = 10, EXEC_BUSY_MAX_PAUSE_MS = 200 };

static void exec_program(const char *path, char *const argv[], char *const envp[])
{
    int attempt, pause_ms = 1;
    for (attempt = 0;; attempt++) {
        execve(path, argv, envp);
        if (errno != ETXTBSY || attempt == EXEC_BUSY_RETRIES) return;
        poll(NULL, 0, pause_ms);
        pause_ms = pause_ms * 2 > EXEC_BUSY_MAX_PAUSE_MS ? EXEC_BUSY_MAX_PAUSE_MS : pause_ms * 2;
        errno = 0;
    }
}

int clinux_spawn_detached(const char *path, char *const argv[], char *const envp[],
                          const char *directory, int *pid_out)
{
    int report[2];
    int devnull, status = 0, result = 0, got_pid = 0;
    pid_t middle;
    struct report r;
    ssize_t n;

    *pid_out = -1;
    devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (devnull < 0) return errno;
    if (pipe2(report, O_CLOEXEC) != 0) { int e = errno; close(devnull); return e; }

    middle = fork();
    if (middle < 0) {
        int e = errno;
        close(devnull); close(report[0]); close(report[1]);
        return e;
    }
    if (middle == 0) {
        long program;
        close(report[0]);
        keep_only(devnull, report[1]);
        setsid();
        program = syscall(SYS_clone, (unsigned long)SIGCHLD, 0UL, 0UL, 0UL, 0UL);
        if (program < 0) { send_report(report[1], REPORT_ERRNO, errno); _exit(1); }
        if (program == 0) {
            prepare_program(devnull, report[1], directory);
            exec_program(path, argv, envp);
            send_report(report[1], REPORT_ERRNO, errno);
            _exit(127);
        }
        send_report(report[1], REPORT_PID, (int)program);
        _exit(0);
    }

    close(devnull);
    close(report[1]);
    while (waitpid(middle, &status, 0) < 0 && errno == EINTR) {}
    /* EOF once the middle process has exited and the program has exec'd
     * (the pipe is close-on-exec) or failed. */
    for (;;) {
        n = read(report[0], &r, sizeof r);
        if (n < 0 && errno == EINTR) continue;
        if (n != (ssize_t)sizeof r) break;
        if (r.kind == REPORT_PID) { *pid_out = r.value; got_pid = 1; }
        else if (r.kind == REPORT_ERRNO && result == 0) result = r.value ? r.value : EIO;
    }
    close(report[0]);
    if (result == 0 && !got_pid) result = ECHILD;
    return result;
}
