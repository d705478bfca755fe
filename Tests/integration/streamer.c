/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* streamer: one libhandoff app at either end of continuation streams, for
 * the stream tests (Tests/integration/test_streams.py) and `make bench`.
 * Uses only handoff.h; prints one line per event on stdout, flushed:
 *
 *   ready role=send|receive
 *   offering id=ID                         (sender)
 *   continued id=ID                        (receiver)
 *   request-error code=N message=M         (receiver: refused at once)
 *   stream-error code=N message=M          (receiver: refused by the network)
 *   stream-open n=I rss-kb=N               (a stream fd arrived)
 *   stream-done n=I sent=N sent-sum=HEX received=N received-sum=HEX
 *               end=ok|eof-early|epipe|reset seconds=S
 *   all-done streams=K hwm-kb=N            (then exit 0)
 *   exit reason=timeout|signal
 *
 * Each side of each stream writes --bytes N bytes (0: none) of a
 * deterministic sequence seeded by the side and stream number, then
 * half-closes; it reads until EOF, hashing what it reads (FNV-1a 64).
 * The sender's n counts streams in arrival order, the receiver's in
 * request order, so with concurrent streams compare sums, not numbers.
 * --slow-read-ms MS: read at most 64 KiB per MS milliseconds (a slow
 * reader). --no-support: the activity does not support streams.
 * --pattern TEXT: send TEXT repeated instead (a canary the relay tests
 * look for on the wire).
 * --agent DIR: through the device's `handoff agent` (HANDOFF_AGENT_SOCKET
 * or the default socket), with the account saved in DIR (an account
 * directory, $XDG_CONFIG_HOME/handoff), instead of an engine of its own
 * with the built-in key; --port and --peer are then not used.
 * --refuse: the sender's delegate takes no streams. --bench: send zeros
 * and hash nothing (sums stay at the FNV offset), for `make bench`.
 *
 * Exit 0 on all-done, timeout or signal; 1 when a call fails; 2 on usage.
 */
#include <handoff.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_STREAMS 64
#define MAX_PEERS 8
#define CHUNK 65536

struct stream {
    int fd;
    int number;
    uint64_t to_send, sent, received;
    uint64_t generator;                 /* xorshift64 state of what we send */
    uint64_t sent_sum, received_sum;    /* FNV-1a 64 */
    int write_closed, read_closed;
    const char *end;
    double opened, next_read;
};

struct options {
    int sending, streams, slow_read_ms, no_support, refuse, bench;
    long long bytes;
    const char *agent_account;
    const char *pattern; /* --pattern: what is sent, repeated */
    size_t pattern_offset;
    int port;
    const char *peers[MAX_PEERS];
    size_t peer_count;
    double timeout;
};

static struct options o;
static struct stream streams[MAX_STREAMS];
static int opened, finished, requested;
static handoff_application *app;
static volatile sig_atomic_t stop_requested;
static unsigned char buffer[CHUNK];

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static void die(const char *what)
{
    fprintf(stderr, "streamer: %s failed: %s\n", what, handoff_last_error_message());
    exit(1);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A field of /proc/self/status in kB (VmRSS, VmHWM). */
static long status_kb(const char *field)
{
    char line[256];
    long value = -1;
    size_t n = strlen(field);
    FILE *f = fopen("/proc/self/status", "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':')
            value = strtol(line + n + 1, NULL, 10);
    fclose(f);
    return value;
}

static uint64_t fnv(uint64_t h, const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ULL;
    return h;
}

static void generate(uint64_t *state, unsigned char *p, size_t n)
{
    size_t i;
    uint64_t x = *state;
    for (i = 0; i < n; i++) {
        if ((i & 7) == 0) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
        }
        p[i] = (unsigned char)(x >> ((i & 7) * 8));
    }
    *state = x;
}

/* ---- streams ------------------------------------------------------------ */

static void add_stream(int fd)
{
    struct stream *s;
    if (opened >= MAX_STREAMS) {
        close(fd);
        return;
    }
    s = &streams[opened];
    memset(s, 0, sizeof *s);
    s->fd = fd;
    s->number = opened++;
    s->to_send = (uint64_t)o.bytes;
    s->generator = 0x9E3779B97F4A7C15ULL * (uint64_t)(2 * s->number + 1 + (o.sending ? 1000 : 0));
    s->sent_sum = s->received_sum = 14695981039346656037ULL;
    s->opened = now_seconds();
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    printf("stream-open n=%d rss-kb=%ld\n", s->number, status_kb("VmRSS"));
    fflush(stdout);
    if (s->to_send == 0) {
        shutdown(fd, SHUT_WR);
        s->write_closed = 1;
    }
}

static void finish_stream(struct stream *s, const char *end)
{
    if (s->fd < 0)
        return;
    close(s->fd);
    s->fd = -1;
    finished++;
    printf("stream-done n=%d sent=%llu sent-sum=%016llx received=%llu received-sum=%016llx end=%s seconds=%.3f\n",
           s->number, (unsigned long long)s->sent, (unsigned long long)s->sent_sum,
           (unsigned long long)s->received, (unsigned long long)s->received_sum, end,
           now_seconds() - s->opened);
    fflush(stdout);
}

static void stream_write(struct stream *s)
{
    /* The sequence is generated one chunk at a time and resent from the
     * same bytes after a short write, so what is hashed is what went out. */
    static unsigned char pending[MAX_STREAMS][CHUNK];
    static size_t pending_len[MAX_STREAMS], pending_off[MAX_STREAMS];
    int i = s->number;
    while (s->to_send > 0 || pending_off[i] < pending_len[i]) {
        ssize_t n;
        if (pending_off[i] >= pending_len[i]) {
            size_t len = s->to_send < CHUNK ? (size_t)s->to_send : CHUNK;
            if (o.pattern) {
                size_t k, m = strlen(o.pattern);
                for (k = 0; k < len; k++, o.pattern_offset++)
                    pending[i][k] = (unsigned char)o.pattern[o.pattern_offset % m];
            } else if (!o.bench)
                generate(&s->generator, pending[i], len);
            pending_len[i] = len;
            pending_off[i] = 0;
            s->to_send -= len;
        }
        n = send(s->fd, pending[i] + pending_off[i], pending_len[i] - pending_off[i], MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return;
            s->end = errno == EPIPE ? "epipe" : "reset";
            s->to_send = 0;
            pending_len[i] = pending_off[i] = 0;
            s->write_closed = 1;
            return;
        }
        if (!o.bench)
            s->sent_sum = fnv(s->sent_sum, pending[i] + pending_off[i], (size_t)n);
        s->sent += (uint64_t)n;
        pending_off[i] += (size_t)n;
    }
    shutdown(s->fd, SHUT_WR);
    s->write_closed = 1;
}

static void stream_read(struct stream *s)
{
    for (;;) {
        ssize_t n;
        if (o.slow_read_ms > 0) {
            double now = now_seconds();
            if (now < s->next_read)
                return;
            s->next_read = now + o.slow_read_ms / 1000.0;
        }
        n = recv(s->fd, buffer, sizeof buffer, 0);
        if (n < 0) {
            if (errno == EAGAIN || errno == EINTR)
                return;
            if (!s->end)
                s->end = "reset";
            s->read_closed = 1;
            return;
        }
        if (n == 0) {
            s->read_closed = 1;
            return;
        }
        if (!o.bench)
            s->received_sum = fnv(s->received_sum, buffer, (size_t)n);
        s->received += (uint64_t)n;
        if (o.slow_read_ms > 0)
            return;
    }
}

/* ---- callbacks ---------------------------------------------------------- */

static void on_stream(handoff_activity *activity, int fd, int error, const char *message, void *user_data)
{
    (void)activity;
    (void)user_data;
    if (fd < 0) {
        printf("stream-error code=%d message=%s\n", error, message ? message : "");
        fflush(stdout);
        finished++;
        return;
    }
    add_stream(fd);
}

static void on_did_receive_stream(handoff_activity *activity, int fd, void *user_data)
{
    (void)activity;
    (void)user_data;
    add_stream(fd);
}

static int on_continue(handoff_application *a, handoff_activity *activity,
                       handoff_restoration_handler *handler, void *user_data)
{
    int i;
    (void)a;
    (void)user_data;
    handoff_restoration_handler_free(handler);
    printf("continued id=%s\n", handoff_activity_get_id(activity));
    fflush(stdout);
    for (i = 0; i < o.streams; i++) {
        if (handoff_activity_get_continuation_streams(activity, on_stream, NULL) != HANDOFF_OK) {
            printf("request-error code=%d message=%s\n", handoff_last_error_code(), handoff_last_error_message());
            fflush(stdout);
            finished++;
        }
        requested++;
    }
    return 1;
}

static void on_fail(handoff_application *a, const char *type, int error, const char *message, void *user_data)
{
    (void)a;
    (void)type;
    (void)user_data;
    printf("failed code=%d message=%s\n", error, message);
    fflush(stdout);
    exit(1);
}

static void on_available(handoff_application *a, const handoff_remote_activity *remote, void *user_data)
{
    static int continued;
    (void)user_data;
    if (continued++)
        return;
    if (handoff_application_continue(a, handoff_remote_activity_get_id(remote)) != HANDOFF_OK)
        die("handoff_application_continue");
}

/* ---- main --------------------------------------------------------------- */

static void usage(const char *why)
{
    fprintf(stderr, "streamer: %s\nusage: streamer --send|--receive (--port P [--peer HOST:PORT]... | --agent ACCOUNT-DIR) [--streams K]\n"
                    "  [--bytes N] [--pattern TEXT] [--slow-read-ms MS] [--no-support] [--refuse] [--bench] [--timeout S]\n", why);
    exit(2);
}

static void parse(int argc, char **argv)
{
    int i;
    o.streams = 1;
    o.timeout = 60;
    o.sending = -1;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define VALUE(name) (strcmp(a, name) == 0 && (v ? (i++, 1) : (usage(name " needs a value"), 0)))
        if (strcmp(a, "--send") == 0) o.sending = 1;
        else if (strcmp(a, "--receive") == 0) o.sending = 0;
        else if (strcmp(a, "--no-support") == 0) o.no_support = 1;
        else if (strcmp(a, "--refuse") == 0) o.refuse = 1;
        else if (strcmp(a, "--bench") == 0) o.bench = 1;
        else if (VALUE("--port")) o.port = atoi(v);
        else if (VALUE("--streams")) o.streams = atoi(v);
        else if (VALUE("--bytes")) o.bytes = atoll(v);
        else if (VALUE("--slow-read-ms")) o.slow_read_ms = atoi(v);
        else if (VALUE("--timeout")) o.timeout = atof(v);
        else if (VALUE("--agent")) o.agent_account = v;
        else if (VALUE("--pattern")) o.pattern = v[0] ? v : NULL;
        else if (VALUE("--peer")) {
            if (o.peer_count == MAX_PEERS)
                usage("too many peers");
            o.peers[o.peer_count++] = v;
        } else usage(a);
#undef VALUE
    }
    if (o.sending < 0 || (o.port <= 0 && !o.agent_account) || o.streams < 1 || o.streams > MAX_STREAMS || o.bytes < 0)
        usage("--send or --receive, --port, --streams 1..64 and --bytes >= 0 are needed");
}

static void offer(void)
{
    handoff_activity_delegate delegate = HANDOFF_ACTIVITY_DELEGATE_INIT;
    handoff_activity *activity = handoff_activity_new("com.example.streamer.transfer");
    if (!activity)
        die("handoff_activity_new");
    if (!o.no_support && handoff_activity_set_flag(activity, HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS, 1) != HANDOFF_OK)
        die("handoff_activity_set_flag");
    if (!o.refuse)
        delegate.user_activity_did_receive_stream = on_did_receive_stream;
    if (handoff_activity_set_delegate(activity, &delegate, NULL, NULL) != HANDOFF_OK)
        die("handoff_activity_set_delegate");
    if (handoff_application_become_current(app, activity) != HANDOFF_OK)
        die("handoff_application_become_current");
    printf("offering id=%s\n", handoff_activity_get_id(activity));
    fflush(stdout);
    handoff_activity_free(activity); /* the application keeps it current */
}

int main(int argc, char **argv)
{
    static const unsigned char key[32] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                          16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
    handoff_application_delegate delegate = HANDOFF_APPLICATION_DELEGATE_INIT;
    handoff_continuity_options options = HANDOFF_CONTINUITY_OPTIONS_INIT;
    handoff_manifest *manifest;
    handoff_account *account;
    struct sigaction sa;
    double deadline;

    parse(argc, argv);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);

    manifest = handoff_manifest_new("com.example.streamer", "STREAMTEAM");
    if (!manifest || handoff_manifest_declare_activity_type(manifest, "com.example.streamer.transfer") != HANDOFF_OK)
        die("handoff_manifest_new");
    delegate.continue_user_activity = on_continue;
    delegate.did_fail_to_continue_user_activity = on_fail;
    delegate.activity_available = o.sending ? NULL : on_available;
    app = handoff_application_new(manifest, &delegate, NULL, NULL);
    if (!app)
        die("handoff_application_new");
    handoff_manifest_free(manifest);

    account = o.agent_account ? handoff_account_load(o.agent_account) : handoff_account_from_key(key, sizeof key);
    if (!account)
        die("handoff_account_load/from_key");
    options.account = account;
    if (o.agent_account) {
        options.mode = HANDOFF_CONTINUITY_MODE_AGENT;
    } else {
        options.device_name = o.sending ? "stream-sender" : "stream-receiver";
        options.beacon_port = o.port;
        options.disable_multicast = 1;
        options.peers = o.peers;
        options.peer_count = o.peer_count;
        options.channel_address = "127.0.0.1:0";
    }
    if (handoff_application_start_continuity(app, &options) != HANDOFF_OK)
        die("handoff_application_start_continuity");
    handoff_account_free(account);
    printf("ready role=%s\n", o.sending ? "send" : "receive");
    fflush(stdout);
    if (o.sending)
        offer();

    deadline = now_seconds() + o.timeout;
    while (!stop_requested && now_seconds() < deadline) {
        struct pollfd fds[MAX_STREAMS + 1];
        struct stream *owner[MAX_STREAMS + 1];
        int count = 1, i, wait = handoff_application_next_timeout(app);
        fds[0].fd = handoff_application_get_fd(app);
        fds[0].events = POLLIN;
        for (i = 0; i < opened; i++) {
            struct stream *s = &streams[i];
            if (s->fd < 0)
                continue;
            fds[count].fd = s->fd;
            fds[count].events = (short)((s->read_closed ? 0 : POLLIN) | (s->write_closed ? 0 : POLLOUT));
            owner[count++] = s;
        }
        if (wait < 0 || wait > 100)
            wait = 100;
        if (o.slow_read_ms > 0 && wait > o.slow_read_ms)
            wait = o.slow_read_ms;
        if (poll(fds, (nfds_t)count, wait) < 0 && errno != EINTR)
            die("poll");
        for (i = 1; i < count; i++) {
            struct stream *s = owner[i];
            if (!s->write_closed && (fds[i].revents & (POLLOUT | POLLERR | POLLHUP)))
                stream_write(s);
            if (!s->read_closed && (fds[i].revents & (POLLIN | POLLERR | POLLHUP)))
                stream_read(s);
            if (s->read_closed && !s->write_closed && (fds[i].revents & (POLLERR | POLLHUP)))
                stream_write(s); /* learns EPIPE */
            if (s->read_closed && s->write_closed)
                finish_stream(s, s->end ? s->end : (s->received == (uint64_t)o.bytes ? "ok" : "eof-early"));
        }
        if (handoff_application_dispatch(app) != HANDOFF_OK)
            die("handoff_application_dispatch");
        if (finished >= o.streams && (o.sending || requested >= o.streams)) {
            printf("all-done streams=%d hwm-kb=%ld\n", opened, status_kb("VmHWM"));
            fflush(stdout);
            handoff_application_free(app);
            return 0;
        }
    }
    printf("exit reason=%s\n", stop_requested ? "signal" : "timeout");
    fflush(stdout);
    handoff_application_free(app);
    return 0;
}
