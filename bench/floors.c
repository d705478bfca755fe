/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* C floors: the thread hand-offs of each library path re-enacted in plain
 * C (threads, pipes, TCP/UDP; no TLS, no crypto, no coding): what the
 * structure alone costs on this machine. Message sizes follow the
 * library's (64-byte request, 512-byte reply). */
#include "bench.h"
#include "net.h"
#include "report.h"

#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define FLOOR_N 500

/* Reads one message from `in` and writes it to `out`, until `in` closes. */
struct relay {
    int in, out;
};

static void *relay_main(void *arg)
{
    struct relay *r = arg;
    char buf[2048];
    for (;;) {
        struct pollfd p = {r->in, POLLIN, 0};
        if (poll(&p, 1, 3000) <= 0)
            return NULL;
        ssize_t n = read(r->in, buf, sizeof buf);
        if (n <= 0 || write(r->out, buf, (size_t)n) != n)
            return NULL;
    }
}

struct floor_ctx {
    int port;           /* server's listener */
    int listener;
    int warm_fd;        /* warm: the client's connection */
    int to_main[2];     /* server connection thread -> "sender main" */
    int to_server[2];   /* "sender main" -> server connection thread */
    int to_receiver[2]; /* fetch thread -> "receiver main" */
    int count;
};

static struct floor_ctx *floor_current;

/* A server connection: request in, through the "main thread" and back,
 * reply out; until the client closes. */
static void serve_connection(struct floor_ctx *fc, int fd)
{
    char req[64], rep[512], b;
    memset(rep, 'r', sizeof rep);
    set_rcvtimeo(fd, 3000);
    while (read_full(fd, req, sizeof req) == 0) {
        struct pollfd p = {fc->to_server[0], POLLIN, 0};
        if (write(fc->to_main[1], "f", 1) != 1 || poll(&p, 1, 3000) <= 0 ||
            read(fc->to_server[0], &b, 1) != 1 || write_full(fd, rep, sizeof rep) != 0)
            break;
    }
    close(fd);
}

static void *floor_conn_thread(void *arg)
{
    int fd = *(int *)arg;
    free(arg);
    serve_connection(floor_current, fd);
    return NULL;
}

/* The accept loop: a thread per connection, as the library's server. */
static void *floor_accept_main(void *arg)
{
    struct floor_ctx *fc = arg;
    for (int i = 0; i < fc->count; i++) {
        int fd = accept_within(fc->listener, 3000);
        if (fd < 0)
            return NULL;
        int *pfd = malloc(sizeof *pfd);
        pthread_t t;
        if (!pfd) {
            close(fd);
            return NULL;
        }
        *pfd = fd;
        if (pthread_create(&t, NULL, floor_conn_thread, pfd) != 0) {
            free(pfd);
            close(fd);
            return NULL;
        }
        pthread_detach(t);
    }
    return NULL;
}

struct floor_fetch {
    struct floor_ctx *fc;
    int fresh;
};

/* The fetch thread, started per round as the library does. */
static void *floor_fetch_main(void *arg)
{
    struct floor_fetch *ff = arg;
    struct floor_ctx *fc = ff->fc;
    char req[64], rep[512];
    memset(req, 'q', sizeof req);
    int fd = ff->fresh ? tcp_connect(fc->port) : fc->warm_fd;
    int ok = fd >= 0 && write_full(fd, req, sizeof req) == 0 && read_full(fd, rep, sizeof rep) == 0;
    if (ff->fresh && fd >= 0)
        close(fd);
    if (write(fc->to_receiver[1], ok ? "k" : "x", 1) != 1) {
        /* the receiver times out */
    }
    return NULL;
}

void floor_fetch(int row, int fresh)
{
    static struct floor_ctx fc;
    int n = FLOOR_N, warmup = 20;
    series s;
    series_init(&s, (size_t)n);
    memset(&fc, 0, sizeof fc);
    fc.count = fresh ? n + warmup : 1;
    fc.listener = tcp_listener(&fc.port);
    floor_current = &fc;
    if (fc.listener < 0 || pipe(fc.to_main) != 0 || pipe(fc.to_server) != 0 ||
        pipe(fc.to_receiver) != 0) {
        note(row, "could not set up");
        free(s.v);
        return;
    }
    struct relay main_thread = {fc.to_main[0], fc.to_server[1]};
    pthread_t accept_thread, relay_thread;
    pthread_create(&accept_thread, NULL, floor_accept_main, &fc);
    pthread_create(&relay_thread, NULL, relay_main, &main_thread);
    fc.warm_fd = fresh ? -1 : tcp_connect(fc.port);
    struct floor_fetch ff = {&fc, fresh};
    for (int i = 0; i < n + warmup; i++) {
        sleep_ns(ROUND_GAP_NS);
        pthread_t t;
        char b = 0;
        int64_t t0 = now_ns();
        if (pthread_create(&t, NULL, floor_fetch_main, &ff) != 0)
            break;
        pthread_detach(t);
        struct pollfd p = {fc.to_receiver[0], POLLIN, 0};
        int woke = poll(&p, 1, 3000) > 0;
        int64_t t1 = now_ns();
        if (!woke || read(fc.to_receiver[0], &b, 1) != 1 || b != 'k') {
            if (i >= warmup)
                s.miss++;
            break;
        }
        if (i >= warmup)
            series_add(&s, t1 - t0);
    }
    if (fc.warm_fd >= 0)
        close(fc.warm_fd); /* the connection thread sees EOF */
    pthread_join(accept_thread, NULL);
    close(fc.to_main[1]); /* the relay sees EOF */
    pthread_join(relay_thread, NULL);
    sleep_ns(20 * 1000000); /* detached connection threads finish */
    close(fc.listener);
    close(fc.to_main[0]), close(fc.to_server[0]), close(fc.to_server[1]);
    close(fc.to_receiver[0]), close(fc.to_receiver[1]);
    set_result(row, &s);
    free(s.v);
}

/* become_current pokes the scheduler thread (a pipe), which sends a UDP
 * datagram; the receiver's beacon thread posts to the app's thread (a
 * pipe), which wakes. */
void floor_beacon(void)
{
    int n = FLOOR_N, warmup = 20;
    series s;
    series_init(&s, (size_t)n);
    int poke_pipe[2], app_pipe[2];
    int a, b;
    if (pipe(poke_pipe) != 0 || pipe(app_pipe) != 0 || udp_pair(&a, &b, 1) != 0) {
        note(ROW_FLOOR_BEACON, "could not set up");
        free(s.v);
        return;
    }
    struct relay scheduler = {poke_pipe[0], a}, beacon_rx = {b, app_pipe[1]};
    pthread_t t1, t2;
    pthread_create(&t1, NULL, relay_main, &scheduler);
    pthread_create(&t2, NULL, relay_main, &beacon_rx);
    char buf[400];
    memset(buf, 'b', sizeof buf);
    for (int i = 0; i < n + warmup; i++) {
        sleep_ns(ROUND_GAP_NS);
        int64_t t0 = now_ns();
        if (write(poke_pipe[1], buf, sizeof buf) != (ssize_t)sizeof buf)
            break;
        struct pollfd p = {app_pipe[0], POLLIN, 0};
        int woke = poll(&p, 1, 3000) > 0;
        int64_t tw = now_ns();
        if (!woke || read(app_pipe[0], buf, sizeof buf) <= 0) {
            if (i >= warmup)
                s.miss++;
            break;
        }
        if (i >= warmup)
            series_add(&s, tw - t0);
    }
    close(poke_pipe[1]); /* the scheduler relay sees EOF ... */
    pthread_join(t1, NULL);
    shutdown(b, SHUT_RDWR); /* ... and the beacon relay wakes */
    close(a);
    pthread_join(t2, NULL);
    close(b), close(poke_pipe[0]), close(app_pipe[0]), close(app_pipe[1]);
    set_result(ROW_FLOOR_BEACON, &s);
    free(s.v);
}
