/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The raw baselines, measured in the same run as the library's figures:
 * TCP ping-pong round trip (64 B, TCP_NODELAY), TCP connect + one round
 * trip + close, pipe and UDP wake-ups from one thread to a thread blocked
 * in poll(), a UDP round trip, and thread creation. */
#include "bench.h"
#include "net.h"
#include "report.h"

#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RAW_RTT_WARMUP 200
#define RAW_RTT_N 5000
#define RAW_FRESH_WARMUP 20
#define RAW_FRESH_N 500
#define UDP_RTT_WARMUP 100
#define UDP_RTT_N 2000

/* TCP ping-pong: the echo side. */
static void *echo_main(void *arg)
{
    int listener = *(int *)arg;
    int fd = accept_within(listener, 2000);
    char buf[MSG];
    if (fd < 0)
        return NULL;
    set_rcvtimeo(fd, 2000);
    while (read_full(fd, buf, MSG) == 0 && write_full(fd, buf, MSG) == 0) {
    }
    close(fd);
    return NULL;
}

void raw_tcp_rtt(int row)
{
    series s;
    series_init(&s, RAW_RTT_N);
    int port, listener = tcp_listener(&port);
    pthread_t t;
    if (listener < 0 || pthread_create(&t, NULL, echo_main, &listener) != 0) {
        note(row, "could not set up");
        return;
    }
    int fd = tcp_connect(port);
    char buf[MSG];
    memset(buf, 'x', sizeof buf);
    for (int i = 0; fd >= 0 && i < RAW_RTT_WARMUP + RAW_RTT_N; i++) {
        int64_t t0 = now_ns();
        if (write_full(fd, buf, MSG) != 0 || read_full(fd, buf, MSG) != 0) {
            s.miss++;
            break;
        }
        if (i >= RAW_RTT_WARMUP)
            series_add(&s, now_ns() - t0);
    }
    if (fd >= 0)
        close(fd);
    pthread_join(t, NULL);
    close(listener);
    set_result(row, &s);
    free(s.v);
}

/* Fresh connections: accept, echo one message, wait for the close. */
struct fresh_server {
    int listener;
    int count;
};

static void *fresh_server_main(void *arg)
{
    struct fresh_server *fs = arg;
    char buf[MSG];
    for (int i = 0; i < fs->count; i++) {
        int fd = accept_within(fs->listener, 2000);
        if (fd < 0)
            return NULL;
        if (read_full(fd, buf, MSG) == 0 && write_full(fd, buf, MSG) == 0)
            (void)recv(fd, buf, sizeof buf, 0); /* the client's close */
        close(fd);
    }
    return NULL;
}

void raw_tcp_fresh(void)
{
    series s;
    series_init(&s, RAW_FRESH_N);
    int port;
    struct fresh_server fs = {tcp_listener(&port), RAW_FRESH_WARMUP + RAW_FRESH_N};
    pthread_t t;
    if (fs.listener < 0 || pthread_create(&t, NULL, fresh_server_main, &fs) != 0) {
        note(ROW_RAW_FRESH, "could not set up");
        return;
    }
    char buf[MSG];
    memset(buf, 'y', sizeof buf);
    for (int i = 0; i < fs.count; i++) {
        int64_t t0 = now_ns();
        int fd = tcp_connect(port);
        int ok = fd >= 0 && write_full(fd, buf, MSG) == 0 && read_full(fd, buf, MSG) == 0;
        if (fd >= 0)
            close(fd);
        int64_t t1 = now_ns();
        if (!ok) {
            s.miss++;
            break; /* the server gives up on its own */
        }
        if (i >= RAW_FRESH_WARMUP)
            series_add(&s, t1 - t0);
    }
    pthread_join(t, NULL);
    close(fs.listener);
    set_result(ROW_RAW_FRESH, &s);
    free(s.v);
}

/* One-way wake-up: thread A stamps the time and signals through `to`
 * (a pipe or a UDP socket); thread B, blocked in poll(), takes the time
 * difference when it wakes and answers through `back`. */
struct oneway {
    int to_read, to_write;     /* A writes to_write, B polls to_read */
    int back_read, back_write; /* B writes back_write, A waits on back_read */
    int udp;                   /* datagrams (recv/send) rather than pipes */
    int64_t gap_ns;            /* idle time before each signal */
    int warmup;
    _Atomic int64_t sent_ns;
    series s;
    int count;
};

static void *oneway_b_main(void *arg)
{
    struct oneway *o = arg;
    char buf[16];
    for (int i = 0; i < o->count; i++) {
        struct pollfd p = {o->to_read, POLLIN, 0};
        if (poll(&p, 1, 2000) <= 0)
            return NULL;
        int64_t t1 = now_ns();
        ssize_t n = o->udp ? recv(o->to_read, buf, sizeof buf, 0) : read(o->to_read, buf, 1);
        if (n <= 0)
            return NULL;
        if (i >= o->warmup)
            series_add(&o->s, t1 - atomic_load(&o->sent_ns));
        if ((o->udp ? send(o->back_write, buf, 1, 0) : write(o->back_write, buf, 1)) != 1)
            return NULL;
    }
    return NULL;
}

void raw_oneway(int row, int udp, int64_t gap_ns, int warmup, int n)
{
    struct oneway o;
    memset(&o, 0, sizeof o);
    o.udp = udp;
    o.gap_ns = gap_ns;
    o.warmup = warmup;
    o.count = warmup + n;
    series_init(&o.s, (size_t)n);
    if (udp) {
        int a, b;
        if (udp_pair(&a, &b, 2) != 0) {
            note(row, "could not set up");
            return;
        }
        o.to_write = a, o.back_read = a, o.to_read = b, o.back_write = b;
    } else {
        int p1[2], p2[2];
        if (pipe(p1) != 0 || pipe(p2) != 0) {
            note(row, "could not set up");
            return;
        }
        o.to_read = p1[0], o.to_write = p1[1], o.back_read = p2[0], o.back_write = p2[1];
    }
    pthread_t t;
    if (pthread_create(&t, NULL, oneway_b_main, &o) != 0) {
        note(row, "could not set up");
        return;
    }
    char buf[16] = "w";
    for (int i = 0; i < o.count; i++) {
        if (o.gap_ns)
            sleep_ns(o.gap_ns);
        atomic_store(&o.sent_ns, now_ns());
        if ((udp ? send(o.to_write, buf, 1, 0) : write(o.to_write, buf, 1)) != 1)
            break;
        struct pollfd p = {o.back_read, POLLIN, 0};
        if (poll(&p, 1, 1000) <= 0) {
            o.s.miss++;
            break;
        }
        if ((udp ? recv(o.back_read, buf, sizeof buf, 0) : read(o.back_read, buf, 1)) <= 0)
            break;
    }
    pthread_join(t, NULL);
    if (udp) {
        close(o.to_write);
        close(o.to_read);
    } else {
        close(o.to_read), close(o.to_write), close(o.back_read), close(o.back_write);
    }
    set_result(row, &o.s);
    free(o.s.v);
}


/* UDP round trip: the echo side. */
static void *udp_echo_main(void *arg)
{
    int fd = *(int *)arg;
    char buf[MSG];
    struct sockaddr_in from;
    for (;;) {
        socklen_t len = sizeof from;
        ssize_t n = recvfrom(fd, buf, sizeof buf, 0, (struct sockaddr *)&from, &len);
        if (n <= 0)
            return NULL; /* the receive timeout: the measurement ended */
        if (n == 1)
            return NULL; /* the stop byte */
        if (sendto(fd, buf, (size_t)n, 0, (struct sockaddr *)&from, len) != n)
            return NULL;
    }
}

void raw_udp_rtt(void)
{
    series s;
    series_init(&s, UDP_RTT_N);
    int a, b;
    pthread_t t;
    if (udp_pair(&a, &b, 0) != 0) {
        note(ROW_RAW_UDP_RTT, "could not set up");
        goto out;
    }
    set_rcvtimeo(a, 500);
    set_rcvtimeo(b, 2000);
    struct sockaddr_in to = loopback(bound_port(b));
    if (pthread_create(&t, NULL, udp_echo_main, &b) != 0) {
        note(ROW_RAW_UDP_RTT, "could not set up");
        goto out;
    }
    char buf[MSG];
    memset(buf, 'u', sizeof buf);
    for (int i = 0; i < UDP_RTT_WARMUP + UDP_RTT_N; i++) {
        int64_t t0 = now_ns();
        if (sendto(a, buf, MSG, 0, (struct sockaddr *)&to, sizeof to) != MSG ||
            recv(a, buf, sizeof buf, 0) != MSG) {
            if (i >= UDP_RTT_WARMUP)
                s.miss++;
            continue;
        }
        if (i >= UDP_RTT_WARMUP)
            series_add(&s, now_ns() - t0);
    }
    (void)sendto(a, "x", 1, 0, (struct sockaddr *)&to, sizeof to);
    pthread_join(t, NULL);
    set_result(ROW_RAW_UDP_RTT, &s);
out:
    if (a >= 0)
        close(a);
    if (b >= 0)
        close(b);
    free(s.v);
}

/* Thread creation: the library starts a thread per fetch and per confirm. */
static _Atomic int64_t thread_started_ns;

static void *stamp_main(void *arg)
{
    (void)arg;
    atomic_store(&thread_started_ns, now_ns());
    return NULL;
}

void measure_thread_start(void)
{
    series s;
    series_init(&s, 500);
    for (int i = 0; i < 520; i++) {
        pthread_t t;
        atomic_store(&thread_started_ns, 0);
        int64_t t0 = now_ns();
        if (pthread_create(&t, NULL, stamp_main, NULL) != 0)
            break;
        pthread_join(t, NULL);
        if (i >= 20)
            series_add(&s, atomic_load(&thread_started_ns) - t0);
    }
    stats st = series_stats(&s);
    g_thread_start = st.p50;
    extra_printf("  raw thread      pthread_create -> new thread running %.1f (p99 %.1f)\n",
                 st.p50 / 1e3, st.p99 / 1e3);
    free(s.v);
}
