/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The start-up row: what linking libhandoff.so adds to a program's start.
 *
 *   bench_startup PLAIN DEPS LINKED [ROUNDS]
 *
 * PLAIN is bench/startup_plain.c (returns at once); DEPS the same program
 * linked with the libraries libhandoff.so needs (its NEEDED: libstdc++,
 * OpenSSL, expat), the floor any program linking the library pays; LINKED
 * bench/startup_linked.c (links libhandoff.so, calls
 * handoff_version_number). Each is a whole process, spawned and reaped
 * here, timed from spawn to reap (CLOCK_MONOTONIC), its CPU time from
 * wait4. They run in rounds, one of each in turn (which goes first
 * rotates), after a warm-up, and each round gives the ratios LINKED/PLAIN,
 * DEPS/PLAIN and LINKED/DEPS: so a machine whose load drifts weighs on both
 * sides of a ratio alike. The row prints each program's median and each
 * ratio's median, min and max; the goal is LINKED/PLAIN <= 1.5 at the
 * median. */
#define _GNU_SOURCE
#include "timing.h"

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define DEFAULT_ROUNDS 200
#define WARMUP 5
#define GOAL_RATIO 1.5

extern char **environ;

struct run {
    double wall_ns, cpu_ns;
};

/* One whole process: spawn, wait, its wall and CPU time; exits on failure. */
static struct run run_once(const char *path)
{
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)path, NULL};
    pid_t pid;
    int64_t start = now_ns();
    int err = posix_spawn(&pid, path, &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (err) {
        fprintf(stderr, "bench_startup: %s: %s\n", path, strerror(err));
        exit(1);
    }
    int status;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("bench_startup: wait4");
            exit(1);
        }
    }
    int64_t end = now_ns();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "bench_startup: %s did not exit 0 (status %d)\n", path, status);
        exit(1);
    }
    struct run r;
    r.wall_ns = (double)(end - start);
    r.cpu_ns = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e9 +
               (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1e3;
    return r;
}

static double min_of(const double *v, size_t n)
{
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        m = v[i] < m ? v[i] : m;
    return m;
}

static double max_of(const double *v, size_t n)
{
    double m = v[0];
    for (size_t i = 1; i < n; i++)
        m = v[i] > m ? v[i] : m;
    return m;
}

static void ratio_row(const char *what, double *ratio, size_t n, double goal)
{
    double lo = min_of(ratio, n), hi = max_of(ratio, n), mid = median_of_values(ratio, n);
    printf("  %-40s %6.2fx (min %.2fx, max %.2fx)", what, mid, lo, hi);
    if (goal > 0)
        printf("  goal <= %.1fx: %s", goal, mid <= goal ? "met" : "NOT met");
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc < 4 || argc > 5) {
        fprintf(stderr, "usage: bench_startup PLAIN DEPS LINKED [ROUNDS]\n");
        return 2;
    }
    const char *path[3] = {argv[1], argv[2], argv[3]};
    const char *label[3] = {"plain C program", "C program linking libhandoff's NEEDED",
                            "C program linking libhandoff.so"};
    long rounds = argc == 5 ? strtol(argv[4], NULL, 10) : DEFAULT_ROUNDS;
    if (rounds < 1 || rounds > 100000) {
        fprintf(stderr, "bench_startup: ROUNDS between 1 and 100000\n");
        return 2;
    }
    for (int i = 0; i < WARMUP; i++)
        for (int k = 0; k < 3; k++)
            run_once(path[k]);
    size_t n = (size_t)rounds;
    double *wall[3], *cpu[3], *ratio[3];
    for (int k = 0; k < 3; k++) {
        wall[k] = calloc(n, sizeof(double));
        cpu[k] = calloc(n, sizeof(double));
        ratio[k] = calloc(n, sizeof(double));
        if (!wall[k] || !cpu[k] || !ratio[k]) {
            fprintf(stderr, "bench_startup: out of memory\n");
            return 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        for (int j = 0; j < 3; j++) {
            int k = (int)((i + (size_t)j) % 3);
            struct run r = run_once(path[k]);
            wall[k][i] = r.wall_ns;
            cpu[k][i] = r.cpu_ns;
        }
        ratio[0][i] = wall[2][i] / wall[0][i];
        ratio[1][i] = wall[1][i] / wall[0][i];
        ratio[2][i] = wall[2][i] / wall[1][i];
    }
    printf("start-up, whole processes spawn -> reap, %zu rounds (median; CPU = user + sys)\n", n);
    for (int k = 0; k < 3; k++)
        printf("  %-40s %8.0f us wall %8.0f us CPU\n", label[k], median_of_values(wall[k], n) / 1e3,
               median_of_values(cpu[k], n) / 1e3);
    ratio_row("libhandoff.so / plain, round by round", ratio[0], n, GOAL_RATIO);
    ratio_row("its NEEDED alone / plain", ratio[1], n, 0);
    ratio_row("libhandoff.so / its NEEDED alone", ratio[2], n, 0);
    for (int k = 0; k < 3; k++) {
        free(wall[k]);
        free(cpu[k]);
        free(ratio[k]);
    }
    return 0;
}
