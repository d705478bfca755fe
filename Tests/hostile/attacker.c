/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* attacker: the hostile side of Tests/hostile (issue 13 item 8).
 *
 *   attacker SUBCOMMAND [N] [options]
 *
 * Every subcommand is bounded: it runs at most --seconds (default 10, at
 * most 120) and stops by itself, and on SIGTERM. It prints `ready ...` once
 * it starts, `engaged` once its first round has reached the target (all N
 * connections tried, every device's beacon sent once), and `result
 * key=value ...` when it ends (counts only).
 * Only loopback and the tests' own namespace addresses are ever given.
 *
 * Channel (TCP, --target HOST:PORT, source --bind ADDR):
 *   silent N            N connections that send nothing, reopened when closed
 *   slowhello N         N connections that send 11 bytes of a ClientHello
 *   garbage-tcp N       N connections that send random bytes (some looking
 *                       like a TLS record), reopened when closed
 *   wrong-psk           TLS 1.3 PSK handshakes, one after another, with
 *                       --key (give another account's key)
 *   idle-auth N         N authenticated connections that then idle, reopened
 *                       when closed; --confirm-random sends a CONFIRM for a
 *                       random id on each every 500 ms
 *   malformed-frames    authenticated connections, each sending one bad
 *                       frame (N = 0, N > 65536, unknown type, truncated,
 *                       short FETCH, a PAYLOAD from the client), round robin
 * Discovery (UDP to every --to HOST:PORT, from --bind ADDR):
 *   beacon-flood N      sealed adverts from N device ids whose channel port
 *                       is --listen's; counts the TCP connections it gets
 *   wrong-account-beacons N   the same (use --key of another account)
 *   garbage-udp         random datagrams, a third of beacon size
 *   replay              re-sends every beacon heard on --capture HOST:PORT
 * Both:
 *   bomb-server         a channel server (--listen) holding --key, announced
 *                       by sealed beacons, answering FETCH with a binary
 *                       plist of arrays --fanout x --fanout sharing one
 *                       --leaf-byte data leaf
 *
 * beacon-flood stops after --rounds passes over its devices when given.
 * Options: --key HEX64 (default the peers' 000102..1f), --team, --bundle,
 * --type (the advertised activity), --rate PER_SECOND (new connections or
 * datagrams, default 400).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>

#define MAX_SLOTS 512
#define MAX_TO 8

struct options {
    const char *cmd;
    long n;
    double seconds;
    unsigned char key[32];
    const char *team, *bundle, *type;
    const char *target, *bind, *listen, *capture;
    const char *to[MAX_TO];
    int to_count;
    int confirm_random;
    long rate;
    long fanout, leaf;
    long rounds;
};

static struct options o;
static volatile sig_atomic_t stop_requested;
static double started_at;
static int engaged;

/* Says once that the first round is done: the tests wait for it. */
static void engage(void)
{
    if (!engaged) {
        engaged = 1;
        printf("engaged\n");
        fflush(stdout);
    }
}

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int time_left(void)
{
    return !stop_requested && now() - started_at < o.seconds;
}

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "attacker: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(2);
}

static void say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* At most o.rate events per second, spread evenly: sleeps when ahead. */
static void pace(long *count)
{
    double due = started_at + (double)(*count)++ / (double)o.rate;
    double wait = due - now();
    if (wait > 0) {
        struct timespec ts = {(time_t)wait, (long)((wait - (double)(time_t)wait) * 1e9)};
        nanosleep(&ts, NULL);
    }
}

/* ---- addresses ------------------------------------------------------------ */

static struct sockaddr_in parse_addr(const char *text)
{
    struct sockaddr_in a;
    char host[64];
    const char *colon = strrchr(text, ':');
    if (!colon || (size_t)(colon - text) >= sizeof host)
        fail("address %s is not HOST:PORT", text);
    memcpy(host, text, (size_t)(colon - text));
    host[colon - text] = 0;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
        fail("address %s is not numeric IPv4", text);
    return a;
}

static void bind_source(int fd, uint16_t port)
{
    struct sockaddr_in a;
    if (!o.bind && !port)
        return;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    if (o.bind && inet_pton(AF_INET, o.bind, &a.sin_addr) != 1)
        fail("--bind %s is not numeric IPv4", o.bind);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0)
        fail("bind %s:%u: %s", o.bind ? o.bind : "0.0.0.0", port, strerror(errno));
}

/* A TCP connection to --target from --bind; nonblocking when asked. */
static int tcp_connect(int nonblocking)
{
    struct sockaddr_in to = parse_addr(o.target);
    struct linger hard = {1, 0};
    struct timeval tv = {3, 0};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | (nonblocking ? SOCK_NONBLOCK : 0), 0);
    if (fd < 0)
        fail("socket: %s", strerror(errno));
    /* A reset on our close: no TIME_WAIT piling up on the attacker's side. */
    setsockopt(fd, SOL_SOCKET, SO_LINGER, &hard, sizeof hard);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    bind_source(fd, 0);
    if (connect(fd, (struct sockaddr *)&to, sizeof to) != 0 && errno != EINPROGRESS) {
        close(fd);
        return -1;
    }
    return fd;
}

static int tcp_listen(const char *where)
{
    struct sockaddr_in a = parse_addr(where);
    int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0 || listen(fd, 128) != 0)
        fail("listen on %s: %s", where, strerror(errno));
    return fd;
}

static int udp_socket(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        fail("socket: %s", strerror(errno));
    bind_source(fd, port);
    return fd;
}

static long udp_send_all(int fd, const unsigned char *p, size_t n)
{
    long sent = 0;
    int i;
    for (i = 0; i < o.to_count; i++) {
        struct sockaddr_in to = parse_addr(o.to[i]);
        if (sendto(fd, p, n, 0, (struct sockaddr *)&to, sizeof to) == (ssize_t)n)
            sent++;
    }
    return sent;
}

/* ---- keys (docs/PROTOCOL.md §4) ------------------------------------------- */

static void derive(const char *label, unsigned char *out, size_t n)
{
    EVP_KDF *kdf = EVP_KDF_fetch(NULL, "HKDF", NULL);
    EVP_KDF_CTX *ctx = kdf ? EVP_KDF_CTX_new(kdf) : NULL;
    OSSL_PARAM params[5];
    params[0] = OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, "SHA256", 0);
    params[1] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY, o.key, 32);
    params[2] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_SALT, "libhandoff v1", 13);
    params[3] = OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, (void *)label, strlen(label));
    params[4] = OSSL_PARAM_construct_end();
    if (!ctx || EVP_KDF_derive(ctx, out, n, params) != 1)
        fail("HKDF failed");
    EVP_KDF_CTX_free(ctx);
    EVP_KDF_free(kdf);
}

/* ---- TLS (docs/PROTOCOL.md §6) ---------------------------------------------- */

static unsigned char channel_psk[32];
static const unsigned char tls_aes_128_gcm[2] = {0x13, 0x01};

static SSL_SESSION *psk_session(SSL *ssl)
{
    SSL_SESSION *s = SSL_SESSION_new();
    const SSL_CIPHER *c = SSL_CIPHER_find(ssl, tls_aes_128_gcm);
    if (!s || !c || !SSL_SESSION_set1_master_key(s, channel_psk, sizeof channel_psk) ||
        !SSL_SESSION_set_cipher(s, c) || !SSL_SESSION_set_protocol_version(s, TLS1_3_VERSION))
        fail("building the PSK session");
    return s;
}

static int use_session(SSL *ssl, const EVP_MD *md, const unsigned char **id, size_t *idlen,
                       SSL_SESSION **sess)
{
    static char identity[48];
    unsigned char r[16];
    int i;
    (void)md;
    RAND_bytes(r, sizeof r);
    strcpy(identity, "handoff1.");
    for (i = 0; i < 16; i++)
        sprintf(identity + 9 + 2 * i, "%02x", r[i]);
    *id = (const unsigned char *)identity;
    *idlen = strlen(identity);
    *sess = psk_session(ssl);
    return 1;
}

static int find_session(SSL *ssl, const unsigned char *id, size_t idlen, SSL_SESSION **sess)
{
    *sess = idlen >= 9 && memcmp(id, "handoff1.", 9) == 0 ? psk_session(ssl) : NULL;
    return 1;
}

static SSL_CTX *tls_context(int server)
{
    SSL_CTX *ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (!ctx || !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) ||
        !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) ||
        !SSL_CTX_set_ciphersuites(ctx, "TLS_AES_128_GCM_SHA256") || !SSL_CTX_set1_groups_list(ctx, "X25519:P-256"))
        fail("configuring TLS");
    SSL_CTX_set_options(ctx, SSL_OP_NO_TICKET);
    SSL_CTX_set_num_tickets(ctx, 0);
    if (server)
        SSL_CTX_set_psk_find_session_callback(ctx, find_session);
    else
        SSL_CTX_set_psk_use_session_callback(ctx, use_session);
    derive("channel psk", channel_psk, sizeof channel_psk);
    return ctx;
}

/* A blocking authenticated connection to --target, or NULL. */
static SSL *tls_connect(SSL_CTX *ctx)
{
    int fd = tcp_connect(0);
    SSL *ssl;
    if (fd < 0)
        return NULL;
    ssl = SSL_new(ctx);
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1) {
        SSL_free(ssl);
        close(fd);
        ERR_clear_error();
        return NULL;
    }
    return ssl;
}

static void tls_close(SSL *ssl)
{
    int fd = SSL_get_fd(ssl);
    SSL_free(ssl);
    close(fd);
}

static int send_frame(SSL *ssl, unsigned type, const unsigned char *payload, size_t n)
{
    unsigned char *f = malloc(n + 5);
    uint32_t len = htonl((uint32_t)(n + 1));
    int ok;
    memcpy(f, &len, 4);
    f[4] = (unsigned char)type;
    if (n)
        memcpy(f + 5, payload, n);
    ok = SSL_write(ssl, f, (int)(n + 5)) == (int)(n + 5);
    free(f);
    return ok;
}

/* ---- plain TCP floods: silent, slowhello, garbage-tcp --------------------- */

static void tcp_flood(void)
{
    static const unsigned char hello[11] = {0x16, 0x03, 0x01, 0x00, 0xc8, 0x01, 0x00, 0x00, 0xc4, 0x03, 0x03};
    struct pollfd fds[MAX_SLOTS];
    char seen[MAX_SLOTS] = {0};
    long resolved = 0;
    long opened = 0, failed = 0, closed_by_peer = 0, paced = 0;
    long peak_open = 0, i;
    int mode = strcmp(o.cmd, "silent") == 0 ? 0 : strcmp(o.cmd, "slowhello") == 0 ? 1 : 2;
    if (o.n < 1 || o.n > MAX_SLOTS)
        fail("N is 1..%d", MAX_SLOTS);
    for (i = 0; i < o.n; i++)
        fds[i].fd = -1;
    say("ready attack=%s n=%ld", o.cmd, o.n);
    while (time_left()) {
        long open_now = 0;
        for (i = 0; i < o.n; i++) {
            if (fds[i].fd >= 0)
                continue;
            pace(&paced);
            fds[i].fd = tcp_connect(1);
            fds[i].events = POLLOUT;
            if (fds[i].fd < 0) {
                failed++;
                if (!seen[i]) {
                    seen[i] = 1;
                    if (++resolved == o.n)
                        engage();
                }
            } else
                opened++;
        }
        if (poll(fds, (nfds_t)o.n, 100) < 0 && errno != EINTR)
            fail("poll: %s", strerror(errno));
        for (i = 0; i < o.n; i++) {
            short r = fds[i].revents;
            if (fds[i].fd < 0 || !r)
                continue;
            if (!seen[i]) {
                seen[i] = 1;
                if (++resolved == o.n)
                    engage();
            }
            if (r & (POLLERR | POLLHUP)) {
                close(fds[i].fd);
                fds[i].fd = -1;
                closed_by_peer++;
            } else if (r & POLLOUT) {
                /* Connected: say what this mode says, then only listen. */
                if (mode == 1) {
                    (void)!write(fds[i].fd, hello, sizeof hello);
                } else if (mode == 2) {
                    unsigned char junk[4096];
                    size_t n = 1 + (size_t)(random() % (long)sizeof junk);
                    RAND_bytes(junk, (int)n);
                    if (random() % 2 && n >= 5)
                        memcpy(junk, hello, 3);
                    (void)!write(fds[i].fd, junk, n);
                }
                fds[i].events = POLLIN;
            } else if (r & POLLIN) {
                char buf[4096];
                ssize_t got = read(fds[i].fd, buf, sizeof buf);
                if (got <= 0) {
                    close(fds[i].fd);
                    fds[i].fd = -1;
                    closed_by_peer++;
                }
            }
        }
        for (i = 0; i < o.n; i++)
            open_now += fds[i].fd >= 0;
        if (open_now > peak_open)
            peak_open = open_now;
    }
    for (i = 0; i < o.n; i++)
        if (fds[i].fd >= 0)
            close(fds[i].fd);
    say("result attack=%s opened=%ld connect_failed=%ld closed_by_peer=%ld peak_open=%ld", o.cmd, opened, failed,
        closed_by_peer, peak_open);
}

/* ---- authenticated attacks ---------------------------------------------- */

static void wrong_psk(void)
{
    SSL_CTX *ctx = tls_context(0);
    long attempts = 0, authenticated = 0, paced = 0;
    say("ready attack=wrong-psk");
    while (time_left() && attempts < (o.n > 0 ? o.n : 100000)) {
        SSL *ssl;
        pace(&paced);
        attempts++;
        ssl = tls_connect(ctx);
        if (ssl) {
            authenticated++;
            tls_close(ssl);
        }
        engage();
    }
    say("result attack=wrong-psk attempts=%ld authenticated=%ld", attempts, authenticated);
    SSL_CTX_free(ctx);
}

static void idle_auth(void)
{
    SSL_CTX *ctx = tls_context(0);
    SSL *conns[MAX_SLOTS] = {0};
    long established = 0, refused = 0, closed_by_peer = 0, confirms = 0, paced = 0, peak = 0, i;
    double next_confirm = now();
    if (o.n < 1 || o.n > MAX_SLOTS)
        fail("N is 1..%d", MAX_SLOTS);
    say("ready attack=idle-auth n=%ld", o.n);
    while (time_left()) {
        struct pollfd fds[MAX_SLOTS];
        long live = 0;
        for (i = 0; i < o.n && time_left(); i++) {
            if (conns[i])
                continue;
            pace(&paced);
            conns[i] = tls_connect(ctx);
            if (conns[i]) {
                established++;
                fcntl(SSL_get_fd(conns[i]), F_SETFL, O_NONBLOCK);
            } else
                refused++;
        }
        engage();
        if (o.confirm_random && now() >= next_confirm) {
            next_confirm = now() + 0.5;
            for (i = 0; i < o.n; i++) {
                unsigned char id[16];
                RAND_bytes(id, sizeof id);
                if (conns[i] && send_frame(conns[i], 0x04, id, sizeof id))
                    confirms++;
            }
        }
        for (i = 0; i < o.n; i++) {
            fds[i].fd = conns[i] ? SSL_get_fd(conns[i]) : -1;
            fds[i].events = POLLIN;
            fds[i].revents = 0;
        }
        if (poll(fds, (nfds_t)o.n, 100) < 0 && errno != EINTR)
            fail("poll: %s", strerror(errno));
        for (i = 0; i < o.n; i++) {
            char buf[4096];
            int got;
            if (!conns[i] || !fds[i].revents)
                continue;
            got = SSL_read(conns[i], buf, sizeof buf);
            if (got <= 0 && SSL_get_error(conns[i], got) != SSL_ERROR_WANT_READ) {
                tls_close(conns[i]);
                conns[i] = NULL;
                closed_by_peer++;
            }
            ERR_clear_error();
        }
        for (i = 0; i < o.n; i++)
            live += conns[i] != NULL;
        if (live > peak)
            peak = live;
    }
    for (i = 0; i < o.n; i++)
        if (conns[i])
            tls_close(conns[i]);
    say("result attack=idle-auth established=%ld refused=%ld closed_by_peer=%ld confirms=%ld peak_open=%ld",
        established, refused, closed_by_peer, confirms, peak);
    SSL_CTX_free(ctx);
}

/* Whether the server closed `ssl` (reads EOF or an error; an ERROR frame
 * may come first) within the socket's receive timeout. */
static int closed_by_server(SSL *ssl)
{
    char buf[4096];
    int got;
    do {
        errno = 0;
        got = SSL_read(ssl, buf, sizeof buf);
    } while (got > 0);
    ERR_clear_error();
    return !(errno == EAGAIN || errno == EWOULDBLOCK);
}

/* One bad thing per connection; whether the server then closed it. A
 * truncated frame is left hanging (at most 16, checked at the end after
 * one second), so the other kinds keep coming meanwhile. */
static void malformed_frames(void)
{
    SSL_CTX *ctx = tls_context(0);
    SSL *hanging[16];
    long sent = 0, closed = 0, left_open = 0, refused = 0, paced = 0, kind = 0;
    long hung = 0, hung_closed = 0, i;
    struct timeval millisecond = {0, 1000};
    struct timespec second_ts = {1, 0};
    say("ready attack=malformed-frames");
    while (time_left() && sent < (o.n > 0 ? o.n : 100000)) {
        unsigned char raw[64];
        SSL *ssl;
        pace(&paced);
        ssl = tls_connect(ctx);
        if (!ssl) {
            refused++;
            continue;
        }
        memset(raw, 0, sizeof raw);
        sent++;
        switch (kind++ % 6) {
        case 0: /* N = 0 */
            SSL_write(ssl, raw, 5);
            break;
        case 1: /* N = 70000 > 65536 */
            raw[1] = 0x01, raw[2] = 0x11, raw[3] = 0x70, raw[4] = 0x01;
            SSL_write(ssl, raw, 5);
            break;
        case 2: /* an unknown type */
            send_frame(ssl, 0x7f, raw, 16);
            break;
        case 3: /* a truncated frame: promises 100 bytes, sends 10, stops */
            raw[3] = 100, raw[4] = 0x01;
            SSL_write(ssl, raw, 15);
            if (hung < 16) {
                hanging[hung++] = ssl;
                continue;
            }
            break;
        case 4: /* a FETCH whose id is 3 bytes */
            send_frame(ssl, 0x01, raw, 3);
            break;
        default: /* a PAYLOAD, which only a sender sends */
            send_frame(ssl, 0x02, raw, 32);
            break;
        }
        if (closed_by_server(ssl))
            closed++;
        else
            left_open++;
        tls_close(ssl);
        engage();
    }
    /* One second for the server to end them all; then a closed one reads
     * EOF at once and an open one times out after 1 ms. */
    if (hung)
        nanosleep(&second_ts, NULL);
    for (i = 0; i < hung; i++) {
        setsockopt(SSL_get_fd(hanging[i]), SOL_SOCKET, SO_RCVTIMEO, &millisecond, sizeof millisecond);
        hung_closed += closed_by_server(hanging[i]);
        tls_close(hanging[i]);
    }
    say("result attack=malformed-frames sent=%ld closed_by_peer=%ld left_open=%ld refused=%ld truncated=%ld "
        "truncated_closed=%ld",
        sent, closed, left_open, refused, hung, hung_closed);
    SSL_CTX_free(ctx);
}

/* ---- beacons (docs/PROTOCOL.md §5) ------------------------------------------ */

static unsigned char beacon_key[32];

static uint64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static size_t put_u64(unsigned char *p, uint64_t v)
{
    int i;
    for (i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (56 - 8 * i));
    return 8;
}

static size_t put_str(unsigned char *p, const char *s)
{
    size_t n = strlen(s);
    p[0] = (unsigned char)(n >> 8), p[1] = (unsigned char)n;
    memcpy(p + 2, s, n);
    return n + 2;
}

/* A sealed advert; returns the packet length. */
static size_t seal_advert(unsigned char *packet, const unsigned char device[16], uint64_t sequence,
                          uint16_t channel_port, const unsigned char activity[16])
{
    unsigned char plain[1152];
    size_t n = 0;
    int len;
    EVP_CIPHER_CTX *c = EVP_CIPHER_CTX_new();
    memset(plain, 0, sizeof plain);
    plain[n++] = 1, plain[n++] = 1, plain[n++] = 1, plain[n++] = 0x02;
    n += put_u64(plain + n, wall_ms());
    n += put_u64(plain + n, sequence);
    memcpy(plain + n, device, 16), n += 16;
    plain[n++] = (unsigned char)(channel_port >> 8), plain[n++] = (unsigned char)channel_port;
    n += put_str(plain + n, "attacker");
    memcpy(plain + n, activity, 16), n += 16;
    n += put_str(plain + n, o.type);
    n += put_str(plain + n, "hostile");
    n += put_str(plain + n, o.team);
    n += put_str(plain + n, o.bundle);
    n += put_str(plain + n, "");
    n += put_u64(plain + n, 0);
    n = (n + 63) / 64 * 64;
    RAND_bytes(packet, 12);
    if (!c || EVP_EncryptInit_ex(c, EVP_aes_256_gcm(), NULL, beacon_key, packet) != 1 ||
        EVP_EncryptUpdate(c, NULL, &len, (const unsigned char *)"libhandoff beacon v1", 20) != 1 ||
        EVP_EncryptUpdate(c, packet + 12, &len, plain, (int)n) != 1 || EVP_EncryptFinal_ex(c, packet + 12 + len, &len) != 1 ||
        EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_GCM_GET_TAG, 16, packet + 12 + n) != 1)
        fail("sealing a beacon");
    EVP_CIPHER_CTX_free(c);
    return 12 + n + 16;
}

static uint16_t listen_port(void)
{
    return ntohs(parse_addr(o.listen).sin_port);
}

/* Accepts and closes whatever connects; counts it. */
static long drain_accepts(int lfd)
{
    long n = 0;
    int fd;
    while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
        close(fd);
        n++;
    }
    return n;
}

static void beacon_flood(void)
{
    unsigned char (*devices)[16];
    unsigned char activity[16], packet[1200];
    long sent = 0, paced = 0, i, connections = 0, round;
    uint64_t sequence = wall_ms();
    int lfd = tcp_listen(o.listen), ufd = udp_socket(0);
    if (o.n < 1 || o.n > 100000)
        fail("N is 1..100000");
    fcntl(lfd, F_SETFL, O_NONBLOCK);
    derive("beacon key", beacon_key, sizeof beacon_key);
    devices = malloc((size_t)o.n * 16);
    RAND_bytes(&devices[0][0], (int)(o.n * 16));
    RAND_bytes(activity, sizeof activity);
    say("ready attack=%s n=%ld", o.cmd, o.n);
    for (round = 0; time_left() && (o.rounds == 0 || round < o.rounds); round++) {
        for (i = 0; i < o.n && time_left(); i++) {
            size_t len = seal_advert(packet, devices[i], ++sequence, listen_port(), activity);
            pace(&paced);
            sent += udp_send_all(ufd, packet, len);
            if (i % 64 == 0)
                connections += drain_accepts(lfd);
        }
        connections += drain_accepts(lfd);
        engage();
    }
    /* What the last beacons still bring in, for a moment (1 s at most). */
    for (i = 0; i < 10 && !stop_requested; i++) {
        struct timespec ts = {0, 100 * 1000 * 1000};
        nanosleep(&ts, NULL);
        connections += drain_accepts(lfd);
    }
    say("result attack=%s devices=%ld sent=%ld connections_to_attacker=%ld", o.cmd, o.n, sent, connections);
    free(devices);
    close(lfd);
    close(ufd);
}

static void garbage_udp(void)
{
    unsigned char packet[1500];
    long sent = 0, paced = 0, i = 0;
    int fd = udp_socket(0);
    say("ready attack=garbage-udp");
    while (time_left() && sent < (o.n > 0 ? o.n : 1000000)) {
        size_t n = i++ % 3 == 0 ? 28 + 64 * (size_t)(1 + random() % 18) : (size_t)(random() % 1500);
        RAND_bytes(packet, (int)(n ? n : 1));
        pace(&paced);
        sent += udp_send_all(fd, packet, n);
        engage();
    }
    say("result attack=garbage-udp sent=%ld", sent);
    close(fd);
}

static void replay(void)
{
    static unsigned char captured[64][1200];
    static size_t sizes[64];
    struct sockaddr_in cap = parse_addr(o.capture);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    long heard = 0, resent = 0, paced = 0, i;
    if (bind(fd, (struct sockaddr *)&cap, sizeof cap) != 0)
        fail("bind %s: %s", o.capture, strerror(errno));
    say("ready attack=replay");
    while (time_left()) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 50) > 0) {
            ssize_t got = recv(fd, captured[heard % 64], 1200, 0);
            if (got > 0)
                sizes[heard++ % 64] = (size_t)got;
        }
        /* Every captured beacon again, each round, to every victim. */
        for (i = 0; i < (heard < 64 ? heard : 64) && time_left(); i++) {
            pace(&paced);
            resent += udp_send_all(fd, captured[i], sizes[i]);
        }
        if (heard)
            engage();
    }
    say("result attack=replay heard=%ld resent=%ld", heard, resent);
    close(fd);
}

/* ---- bomb-server ---------------------------------------------------------- */

static unsigned char *bomb;
static size_t bomb_size;
static unsigned char bomb_activity[16];
static long fetches_served, bomb_connections;
static pthread_mutex_t counts = PTHREAD_MUTEX_INITIALIZER;

static size_t put_marker(unsigned char *p, unsigned kind, size_t count)
{
    if (count < 15) {
        p[0] = (unsigned char)(kind | count);
        return 1;
    }
    p[0] = (unsigned char)(kind | 0x0f), p[1] = 0x11, p[2] = (unsigned char)(count >> 8), p[3] = (unsigned char)count;
    return 4;
}

static size_t put_ascii(unsigned char *p, const char *s)
{
    size_t n = put_marker(p, 0x50, strlen(s));
    memcpy(p + n, s, strlen(s));
    return n + strlen(s);
}

/* The activity payload (§3) whose userInfo {"bomb": top} has top = array of
 * fanout refs to mid, mid = array of fanout refs to one leaf. 1-byte refs. */
static void build_bomb(void)
{
    static const char *keys[5] = {"activityID", "activityType", "title", "userInfo", "version"};
    char uuid[37];
    size_t offsets[16], n = 0, i;
    unsigned char *p = malloc(64 + 2 * (size_t)o.fanout + (size_t)o.leaf + 1024);
    if (o.fanout < 1 || o.fanout > 65535 || o.leaf < 1 || o.leaf > 65535)
        fail("--fanout and --leaf are 1..65535");
    sprintf(uuid, "%02X%02X%02X%02X-%02X%02X-%02X%02X-%02X%02X-%02X%02X%02X%02X%02X%02X", bomb_activity[0],
            bomb_activity[1], bomb_activity[2], bomb_activity[3], bomb_activity[4], bomb_activity[5],
            bomb_activity[6], bomb_activity[7], bomb_activity[8], bomb_activity[9], bomb_activity[10],
            bomb_activity[11], bomb_activity[12], bomb_activity[13], bomb_activity[14], bomb_activity[15]);
    memcpy(p, "bplist00", 8), n = 8;
    /* 0: root {keys 1..5: values 6,7,8,9,14} */
    offsets[0] = n;
    p[n++] = 0xd5;
    for (i = 1; i <= 5; i++)
        p[n++] = (unsigned char)i;
    p[n++] = 6, p[n++] = 7, p[n++] = 8, p[n++] = 9, p[n++] = 14;
    for (i = 0; i < 5; i++)
        offsets[1 + i] = n, n += put_ascii(p + n, keys[i]);
    offsets[6] = n, n += put_ascii(p + n, uuid);
    offsets[7] = n, n += put_ascii(p + n, o.type);
    offsets[8] = n, n += put_ascii(p + n, "bomb");
    offsets[9] = n, p[n++] = 0xd1, p[n++] = 10, p[n++] = 11; /* userInfo {"bomb": top} */
    offsets[10] = n, n += put_ascii(p + n, "bomb");
    offsets[11] = n, n += put_marker(p + n, 0xa0, (size_t)o.fanout);
    for (i = 0; i < (size_t)o.fanout; i++)
        p[n++] = 12;
    offsets[12] = n, n += put_marker(p + n, 0xa0, (size_t)o.fanout);
    for (i = 0; i < (size_t)o.fanout; i++)
        p[n++] = 13;
    offsets[13] = n, n += put_marker(p + n, 0x40, (size_t)o.leaf);
    memset(p + n, 0x42, (size_t)o.leaf), n += (size_t)o.leaf;
    offsets[14] = n, p[n++] = 0x10, p[n++] = 1;
    {
        size_t table = n;
        for (i = 0; i < 15; i++)
            p[n++] = (unsigned char)(offsets[i] >> 8), p[n++] = (unsigned char)offsets[i];
        memset(p + n, 0, 6), n += 6;
        p[n++] = 2, p[n++] = 1; /* offset size, ref size */
        n += put_u64(p + n, 15);
        n += put_u64(p + n, 0);
        n += put_u64(p + n, table);
    }
    bomb = p;
    bomb_size = n;
}

static int read_exact(SSL *ssl, unsigned char *p, size_t n)
{
    while (n) {
        int got = SSL_read(ssl, p, (int)n);
        if (got <= 0)
            return 0;
        p += got, n -= (size_t)got;
    }
    return 1;
}

static void *bomb_connection(void *arg)
{
    SSL *ssl = arg;
    unsigned char head[5], payload[64];
    if (SSL_accept(ssl) == 1) {
        while (time_left() && read_exact(ssl, head, 5)) {
            uint32_t len = ((uint32_t)head[0] << 24) | ((uint32_t)head[1] << 16) | ((uint32_t)head[2] << 8) | head[3];
            if (len < 1 || len - 1 > sizeof payload || !read_exact(ssl, payload, len - 1))
                break;
            if (head[4] == 0x01) {
                send_frame(ssl, 0x02, bomb, bomb_size);
                pthread_mutex_lock(&counts);
                fetches_served++;
                pthread_mutex_unlock(&counts);
            }
        }
    }
    ERR_clear_error();
    tls_close(ssl);
    return NULL;
}

static void bomb_server(void)
{
    SSL_CTX *ctx = tls_context(1);
    unsigned char device[16], packet[1200];
    uint64_t sequence = wall_ms();
    long sent = 0;
    double next_beacon = 0;
    int lfd = tcp_listen(o.listen), ufd = udp_socket(0);
    derive("beacon key", beacon_key, sizeof beacon_key);
    RAND_bytes(device, sizeof device);
    RAND_bytes(bomb_activity, sizeof bomb_activity);
    build_bomb();
    say("ready attack=bomb-server bytes=%zu", bomb_size);
    engage();
    while (time_left()) {
        struct pollfd p = {lfd, POLLIN, 0};
        if (now() >= next_beacon) {
            size_t len = seal_advert(packet, device, ++sequence, listen_port(), bomb_activity);
            sent += udp_send_all(ufd, packet, len);
            next_beacon = now() + 0.5;
        }
        if (poll(&p, 1, 100) > 0) {
            int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
            struct timeval tv = {2, 0};
            pthread_t t;
            SSL *ssl;
            if (fd < 0)
                continue;
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
            ssl = SSL_new(ctx);
            SSL_set_fd(ssl, fd);
            bomb_connections++;
            if (pthread_create(&t, NULL, bomb_connection, ssl) != 0)
                tls_close(ssl);
            else
                pthread_detach(t);
        }
    }
    pthread_mutex_lock(&counts);
    say("result attack=bomb-server bytes=%zu beacons=%ld connections=%ld fetches_served=%ld", bomb_size, sent,
        bomb_connections, fetches_served);
    pthread_mutex_unlock(&counts);
    /* Connection threads end within their 2 s socket timeouts; exit kills them. */
}

/* ---- options ------------------------------------------------------------ */

static void parse_key(const char *hex)
{
    int i;
    if (strlen(hex) != 64)
        fail("--key takes 64 hex digits");
    for (i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            fail("--key takes 64 hex digits");
        o.key[i] = (unsigned char)v;
    }
}

int main(int argc, char **argv)
{
    struct sigaction sa;
    int i;
    if (argc < 2)
        fail("usage: attacker SUBCOMMAND [N] [options] (see attacker.c)");
    o.cmd = argv[1];
    o.seconds = 10;
    o.rate = 400;
    o.team = "PEERTEAM1";
    o.bundle = "com.example.peer";
    o.type = "com.example.peer.activity";
    o.fanout = 1000;
    o.leaf = 4096;
    for (i = 0; i < 32; i++)
        o.key[i] = (unsigned char)i;
    i = 2;
    if (i < argc && argv[i][0] != '-')
        o.n = atol(argv[i++]);
    for (; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
#define VALUE(name) (strcmp(a, name) == 0 && (v ? (i++, 1) : (fail(name " needs a value"), 0)))
        if (strcmp(a, "--confirm-random") == 0)
            o.confirm_random = 1;
        else if (VALUE("--seconds"))
            o.seconds = atof(v);
        else if (VALUE("--key"))
            parse_key(v);
        else if (VALUE("--team"))
            o.team = v;
        else if (VALUE("--bundle"))
            o.bundle = v;
        else if (VALUE("--type"))
            o.type = v;
        else if (VALUE("--target"))
            o.target = v;
        else if (VALUE("--bind"))
            o.bind = v;
        else if (VALUE("--listen"))
            o.listen = v;
        else if (VALUE("--capture"))
            o.capture = v;
        else if (VALUE("--rate"))
            o.rate = atol(v);
        else if (VALUE("--fanout"))
            o.fanout = atol(v);
        else if (VALUE("--rounds"))
            o.rounds = atol(v);
        else if (VALUE("--leaf"))
            o.leaf = atol(v);
        else if (VALUE("--to")) {
            if (o.to_count == MAX_TO)
                fail("at most %d --to", MAX_TO);
            o.to[o.to_count++] = v;
        } else
            fail("unknown argument %s", a);
#undef VALUE
    }
    if (!(o.seconds > 0 && o.seconds <= 120))
        fail("--seconds is in (0, 120]");
    if (o.rate < 1 || o.rate > 100000)
        fail("--rate is 1..100000");
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    srandom((unsigned)getpid());
    started_at = now();

#define NEEDS(field, flag) \
    if (!o.field)          \
    fail("%s needs " flag, o.cmd)
    if (!strcmp(o.cmd, "silent") || !strcmp(o.cmd, "slowhello") || !strcmp(o.cmd, "garbage-tcp")) {
        NEEDS(target, "--target");
        tcp_flood();
    } else if (!strcmp(o.cmd, "wrong-psk")) {
        NEEDS(target, "--target");
        wrong_psk();
    } else if (!strcmp(o.cmd, "idle-auth")) {
        NEEDS(target, "--target");
        idle_auth();
    } else if (!strcmp(o.cmd, "malformed-frames")) {
        NEEDS(target, "--target");
        malformed_frames();
    } else if (!strcmp(o.cmd, "beacon-flood") || !strcmp(o.cmd, "wrong-account-beacons")) {
        NEEDS(listen, "--listen");
        NEEDS(to_count, "--to");
        beacon_flood();
    } else if (!strcmp(o.cmd, "garbage-udp")) {
        NEEDS(to_count, "--to");
        garbage_udp();
    } else if (!strcmp(o.cmd, "replay")) {
        NEEDS(capture, "--capture");
        NEEDS(to_count, "--to");
        replay();
    } else if (!strcmp(o.cmd, "bomb-server")) {
        NEEDS(listen, "--listen");
        NEEDS(to_count, "--to");
        bomb_server();
    } else
        fail("unknown subcommand %s", o.cmd);
#undef NEEDS
    return 0;
}
