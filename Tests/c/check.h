/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * check.h - a tiny test harness for libhandoff's C tests. No dependencies
 * beyond the C11 standard library (plus fork/waitpid/alarm on POSIX, used to
 * isolate each test in its own process when available).
 *
 * Usage:
 *
 *     #include "check.h"
 *
 *     static void test_something(void) {
 *         CHECK(1 + 1 == 2);
 *         CHECK_EQ_INT(strlen("abc"), 3);
 *         CHECK_EQ_STR(getenv("HOME"), "/root");
 *     }
 *
 *     int main(int argc, char **argv) {
 *         check_init(argc, argv);
 *         CHECK_RUN(test_something);
 *         return check_finish();
 *     }
 *
 * A failing CHECK prints "file:line: message" and the test goes on; a test
 * function fails when at least one of its checks failed (or, when isolated,
 * when it crashed, timed out or exited non-zero). check_finish() prints the
 * summary alone on its own line, exactly
 *
 *     N passed, N failed
 *
 * (N counts test functions) and returns the exit status: 0 only if none
 * failed.
 *
 * Command line: test names given as arguments run only those tests.
 * Environment: CHECK_NOFORK=1 runs every test in the main process (handy
 * under a debugger or valgrind); CHECK_TIMEOUT=seconds limits each isolated
 * test (default 120, 0 for none); CHECK_VERBOSE=1 prints a line per test.
 *
 * Everything is `static`: include this header from one translation unit.
 */
#ifndef CHECK_H
#define CHECK_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__unix__) && defined(_POSIX_C_SOURCE) && _POSIX_C_SOURCE >= 200112L
#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#define CHECK_HAVE_FORK 1
#else
#define CHECK_HAVE_FORK 0
#endif

#if defined(__GNUC__) || defined(__clang__)
#define CHECK_UNUSED __attribute__((unused))
#define CHECK_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CHECK_UNUSED
#define CHECK_PRINTF(f, a)
#endif

typedef void (*check_test_fn)(void);

static int check_argc_;
static char **check_argv_;
static const char *check_current_test_ = "";
static long check_failures_in_test_; /* failed checks in the running test */
static long check_checks_in_test_;
static int check_tests_passed_;
static int check_tests_failed_;
static int check_verbose_;

/* Records a failed check and carries on. */
static CHECK_UNUSED CHECK_PRINTF(3, 4) void check_fail_(const char *file, int line,
                                                          const char *format, ...) {
    va_list args;
    check_failures_in_test_++;
    fprintf(stdout, "%s:%d: [%s] ", file, line, check_current_test_);
    va_start(args, format);
    vfprintf(stdout, format, args);
    va_end(args);
    fputc('\n', stdout);
    fflush(stdout);
}

/* Each CHECK evaluates its arguments exactly once and yields 1 when it
 * passed, 0 when it failed, so a test can write
 * `if (!CHECK(p != NULL)) return;` to stop before dereferencing. */
static CHECK_UNUSED int check_bool_(int ok, const char *file, int line, const char *text) {
    check_checks_in_test_++;
    if (!ok) check_fail_(file, line, "CHECK(%s) failed", text);
    return ok;
}

static CHECK_UNUSED int check_eq_int_(long long actual, long long expected, const char *file,
                                      int line, const char *actual_text,
                                      const char *expected_text) {
    check_checks_in_test_++;
    if (actual != expected) {
        check_fail_(file, line, "CHECK_EQ_INT(%s, %s) failed: %lld != %lld", actual_text,
                    expected_text, actual, expected);
        return 0;
    }
    return 1;
}

static CHECK_UNUSED int check_eq_str_(const char *actual, const char *expected, const char *file,
                                      int line, const char *actual_text,
                                      const char *expected_text) {
    int ok;
    check_checks_in_test_++;
    if (actual == NULL || expected == NULL) {
        ok = actual == expected;
    } else {
        ok = strcmp(actual, expected) == 0;
    }
    if (!ok) {
        check_fail_(file, line, "CHECK_EQ_STR(%s, %s) failed: %s%s%s != %s%s%s", actual_text,
                    expected_text, actual ? "\"" : "", actual ? actual : "NULL",
                    actual ? "\"" : "", expected ? "\"" : "", expected ? expected : "NULL",
                    expected ? "\"" : "");
    }
    return ok;
}

#define CHECK(cond) check_bool_((cond) ? 1 : 0, __FILE__, __LINE__, #cond)
#define CHECK_EQ_INT(actual, expected) \
    check_eq_int_((long long)(actual), (long long)(expected), __FILE__, __LINE__, #actual, #expected)
#define CHECK_EQ_STR(actual, expected) \
    check_eq_str_((actual), (expected), __FILE__, __LINE__, #actual, #expected)
/* An explicit failure with a printf-style message. */
#define CHECK_FAIL(...) check_fail_(__FILE__, __LINE__, __VA_ARGS__)

static CHECK_UNUSED void check_init(int argc, char **argv) {
    const char *verbose = getenv("CHECK_VERBOSE");
    check_argc_ = argc;
    check_argv_ = argv;
    check_verbose_ = verbose != NULL && verbose[0] != '\0' && strcmp(verbose, "0") != 0;
}

static CHECK_UNUSED int check_selected_(const char *name) {
    int i;
    if (check_argc_ <= 1) return 1;
    for (i = 1; i < check_argc_; i++) {
        if (strcmp(check_argv_[i], name) == 0) return 1;
    }
    return 0;
}

static CHECK_UNUSED void check_record_(const char *name, int passed, const char *why) {
    if (passed) {
        check_tests_passed_++;
        if (check_verbose_) printf("PASS %s\n", name);
    } else {
        check_tests_failed_++;
        printf("FAIL %s%s%s\n", name, why ? ": " : "", why ? why : "");
    }
    fflush(stdout);
}

/* Runs one test in the current process; returns 1 when it passed. */
static CHECK_UNUSED int check_run_here_(const char *name, check_test_fn fn) {
    check_current_test_ = name;
    check_failures_in_test_ = 0;
    check_checks_in_test_ = 0;
    fn();
    fflush(stdout);
    check_current_test_ = "";
    return check_failures_in_test_ == 0;
}

static CHECK_UNUSED void check_run_(const char *name, check_test_fn fn) {
    const char *nofork = getenv("CHECK_NOFORK");
    if (!check_selected_(name)) return;
    fflush(stdout);
    fflush(stderr);
#if CHECK_HAVE_FORK
    if (nofork == NULL || nofork[0] == '\0' || strcmp(nofork, "0") == 0) {
        const char *timeout_text = getenv("CHECK_TIMEOUT");
        unsigned timeout = timeout_text ? (unsigned)strtoul(timeout_text, NULL, 10) : 120u;
        int status = 0;
        pid_t pid = fork();
        if (pid == 0) {
            int passed;
            if (timeout > 0) alarm(timeout);
            passed = check_run_here_(name, fn);
            fflush(stdout);
            fflush(stderr);
            exit(passed ? 0 : 1);
        }
        if (pid > 0) {
            char why[96];
            if (waitpid(pid, &status, 0) != pid) {
                check_record_(name, 0, "waitpid failed");
            } else if (WIFEXITED(status)) {
                snprintf(why, sizeof why, "exit status %d", WEXITSTATUS(status));
                check_record_(name, WEXITSTATUS(status) == 0, WEXITSTATUS(status) == 1 ? NULL : why);
            } else if (WIFSIGNALED(status)) {
                snprintf(why, sizeof why, "killed by signal %d%s", WTERMSIG(status),
                         WTERMSIG(status) == SIGALRM ? " (timeout)" : "");
                check_record_(name, 0, why);
            } else {
                check_record_(name, 0, "ended abnormally");
            }
            return;
        }
        /* fork failed: fall through and run in this process. */
    }
#else
    (void)nofork;
#endif
    check_record_(name, check_run_here_(name, fn), NULL);
}

/* Registers and runs a named test function. */
#define CHECK_RUN(fn) check_run_(#fn, fn)

/* Prints the summary line and returns the process exit status. */
static CHECK_UNUSED int check_finish(void) {
    printf("%d passed, %d failed\n", check_tests_passed_, check_tests_failed_);
    fflush(stdout);
    return check_tests_failed_ == 0 ? 0 : 1;
}

#endif /* CHECK_H */
