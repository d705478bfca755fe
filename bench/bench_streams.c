/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* bench_streams: continuation-stream throughput over loopback, next to raw
 * TCP throughput measured in the same run on the same machine.
 *
 *   bench_streams STREAMER [MEGABYTES] [ROUNDS]
 *
 * Raw TCP: a child process writes MEGABYTES in 64 KiB blocking writes to a
 * loopback TCP connection; the parent reads them in 64 KiB reads. Stream:
 * two STREAMER processes (Tests/integration/streamer.c with --bench) hand
 * off an activity, open one continuation stream, and the sender writes
 * MEGABYTES through it; the time is the receiver's, from the stream's
 * arrival to EOF: TLS 1.3 (AES-128-GCM) plus a Unix socket hop at each end.
 * Rounds alternate raw and stream so machine noise hits both; medians are
 * compared. Never fails on a figure: it reports.
 */
#define _GNU_SOURCE
#include "timing.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BLOCK 65536

static double now(void)
{
    return (double)now_ns() / 1e9;
}

static void fail(const char *what)
{
    perror(what);
    exit(1);
}

/* Seconds to move `bytes` over one loopback TCP connection. */
static double raw_tcp(long long bytes)
{
    static char block[BLOCK];
    struct sockaddr_in addr;
    socklen_t len = sizeof addr;
    long long got = 0;
    int listener, conn, status;
    double start;
    pid_t child;

    memset(&addr, 0, sizeof addr);
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (listener < 0 || bind(listener, (struct sockaddr *)&addr, sizeof addr) < 0 || listen(listener, 1) < 0 ||
        getsockname(listener, (struct sockaddr *)&addr, &len) < 0)
        fail("raw TCP listener");
    child = fork();
    if (child < 0)
        fail("fork");
    if (child == 0) {
        long long left = bytes;
        int s = socket(AF_INET, SOCK_STREAM, 0);
        if (s < 0 || connect(s, (struct sockaddr *)&addr, sizeof addr) < 0)
            _exit(1);
        while (left > 0) {
            ssize_t n = write(s, block, left < BLOCK ? (size_t)left : BLOCK);
            if (n <= 0)
                _exit(1);
            left -= n;
        }
        close(s);
        _exit(0);
    }
    conn = accept(listener, NULL, NULL);
    if (conn < 0)
        fail("accept");
    start = now();
    for (;;) {
        ssize_t n = read(conn, block, sizeof block);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += n;
    }
    start = now() - start;
    close(conn);
    close(listener);
    waitpid(child, &status, 0);
    if (got != bytes)
        fprintf(stderr, "bench_streams: raw TCP moved %lld of %lld bytes\n", got, bytes), exit(1);
    return start;
}

/* Each streamer is a device of its own: with no device id the library uses
 * the person's device file, so each gets a config folder of its own (two
 * processes sharing one device id drop each other's beacons as their own). */
static char config_root[64];

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static pid_t spawn(char *const argv[], const char *device, int *out)
{
    int p[2];
    pid_t pid;
    if (pipe2(p, O_CLOEXEC) < 0)
        fail("pipe");
    pid = fork();
    if (pid < 0)
        fail("fork");
    if (pid == 0) {
        char config[128];
        snprintf(config, sizeof config, "%s/%s", config_root, device);
        mkdir(config, 0700);
        setenv("XDG_CONFIG_HOME", config, 1);
        dup2(p[1], 1);
        execv(argv[0], argv);
        _exit(127);
    }
    close(p[1]);
    *out = p[0];
    return pid;
}

/* Seconds the receiver took from the stream's arrival to EOF; -1 on a failure. */
static double stream_once(const char *streamer, long long bytes, int round)
{
    char ps[16], pr[16], peer_s[32], peer_r[32], count[32], line[512];
    double seconds = -1;
    long long received = -1;
    int out_s, out_r, status;
    pid_t sender, receiver;
    FILE *f;
    int base = 41000 + (int)(getpid() % 2000) * 8 + (round % 4) * 2;

    snprintf(ps, sizeof ps, "%d", base);
    snprintf(pr, sizeof pr, "%d", base + 1);
    snprintf(peer_s, sizeof peer_s, "127.0.0.1:%d", base + 1);
    snprintf(peer_r, sizeof peer_r, "127.0.0.1:%d", base);
    snprintf(count, sizeof count, "%lld", bytes);
    {
        char *sargv[] = {(char *)streamer, "--send", "--bench", "--port", ps, "--peer", peer_s,
                         "--bytes", count, "--timeout", "60", NULL};
        char *rargv[] = {(char *)streamer, "--receive", "--bench", "--port", pr, "--peer", peer_r,
                         "--bytes", "0", "--timeout", "60", NULL};
        sender = spawn(sargv, "sender", &out_s);
        receiver = spawn(rargv, "receiver", &out_r);
    }
    f = fdopen(out_r, "r");
    while (f && fgets(line, sizeof line, f)) {
        if (getenv("BENCH_DEBUG")) fputs(line, stderr);
        const char *s = strstr(line, " seconds="), *r = strstr(line, " received=");
        if (strncmp(line, "stream-done", 11) == 0 && s && r) {
            seconds = atof(s + 9);
            received = atoll(r + 10);
        }
        if (strncmp(line, "all-done", 8) == 0)
            break;
    }
    if (f)
        fclose(f);
    close(out_s);
    kill(sender, SIGTERM);
    kill(receiver, SIGTERM);
    waitpid(sender, &status, 0);
    waitpid(receiver, &status, 0);
    return received == bytes ? seconds : -1;
}

int main(int argc, char **argv)
{
    const char *streamer = argc > 1 ? argv[1] : "build/bin/streamer";
    long long mb = argc > 2 ? atoll(argv[2]) : 1000, bytes = mb * 1000 * 1000;
    int rounds = argc > 3 ? atoi(argv[3]) : 5, i, ok = 0;
    double raw[64], stream[64], r, s;

    signal(SIGPIPE, SIG_IGN);
    if (rounds < 1 || rounds > 64 || mb < 1)
        return fprintf(stderr, "usage: bench_streams STREAMER [MEGABYTES] [ROUNDS<=64]\n"), 2;
    strcpy(config_root, "/tmp/bench-streams-XXXXXX");
    if (!mkdtemp(config_root))
        fail("mkdtemp");
    printf("continuation-stream throughput, %lld MB one way per round, %d rounds (raw and stream alternate)\n", mb, rounds);
    for (i = 0; i < rounds; i++) {
        raw[i] = raw_tcp(bytes);
        s = stream_once(streamer, bytes, i);
        if (s > 0)
            stream[ok++] = s;
        else
            fprintf(stderr, "bench_streams: stream round %d failed\n", i + 1);
    }
    nftw(config_root, remove_entry, 8, FTW_DEPTH | FTW_PHYS);
    if (ok == 0)
        return fprintf(stderr, "bench_streams: no stream round completed\n"), 1;
    r = bytes / median_of_values(raw, (size_t)rounds) / 1e6;
    s = bytes / median_of_values(stream, (size_t)ok) / 1e6;
    printf("%-46s %10s\n", "", "MB/s (median)");
    printf("%-46s %10.0f\n", "raw TCP over loopback (baseline)", r);
    printf("%-46s %10.0f\n", "continuation stream (TLS 1.3, host sockets)", s);
    printf("%-46s %9.0f%%   target >= 50%%: %s\n", "stream / raw", 100 * s / r, s >= r / 2 ? "met" : "NOT met");
    /* Like bench: timings are reported, never judged; a broken path fails. */
    if (ok * 100 < rounds * 95)
        return fprintf(stderr, "bench_streams: FAILED: %d of %d stream rounds completed (fewer than 95%%)\n", ok, rounds), 1;
    return 0;
}
