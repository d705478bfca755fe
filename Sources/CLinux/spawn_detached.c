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
        setsid();
        program = syscall(SYS_clone, (unsigned long)SIGCHLD, 0UL, 0UL, 0UL, 0UL);
        if (program < 0) { send_report(report[1], REPORT_ERRNO, errno); _exit(1); }
        if (program == 0) {
            prepare_program(devnull, report[1], directory);
            execve(path, argv, envp);
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
