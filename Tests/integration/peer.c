/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* peer: one libhandoff app, sender or receiver, for the process-level
 * integration tests (Tests/integration/test_handoff.py). It uses only
 * handoff.h and prints one line per event on stdout, flushed:
 *
 *   ready role=send|receive device=NAME
 *   offering id=ID type=TYPE                  (sender: became current)
 *   saving bytes=N                            (sender: responder saved)
 *   was-continued id=ID                       (sender)
 *   available id=ID type=TYPE title=T web=0|1 device=NAME device-id=HEX url=URL
 *   updated   (same fields)    withdrawn id=ID type=TYPE
 *   continue-error code=N message=M           (handoff_application_continue)
 *   will-continue type=TYPE
 *   continued type=TYPE id=ID title=T info-bytes=N info-sum=HEX count=N
 *   restored info-bytes=N                     (receiver's responder)
 *   failed type=TYPE code=N message=M
 *   webpage url=URL                           (never opens a browser)
 *   exit reason=timeout|signal
 *
 * Values are escaped: bytes outside '!'..'~' and '%' become %XX.
 * userInfo: {"blob": data of --userinfo-bytes bytes, byte i = (31*i + 7)
 * & 0xff, "count": that number}; info-sum is FNV-1a 32 of the blob.
 *
 * Defaults: the account key 000102..1f (docs/PROTOCOL.md §4), team
 * PEERTEAM1, bundle com.example.peer, type com.example.peer.activity,
 * title peer-title, no URL, empty blob; the app declares its --type unless
 * --declare is given. --never-dispatch: the sender never dispatches after
 * offering (a hung main thread). --offer-on-usr1: the sender offers nothing
 * until SIGUSR1. --auto-continue: the receiver continues the first
 * activity offered; --continue-times N (with --auto-continue): it continues
 * that activity again after each continuation, N times in all.
 * --continue-each: the receiver continues every activity offered (the
 * hostile suite's repeated handoffs). --agent: through the agent
 * (HANDOFF_CONTINUITY_MODE_AGENT, its socket from HANDOFF_AGENT_SOCKET);
 * the network options are then ignored (the agent owns the device).
 *
 * SIGTERM / SIGINT: clean exit 0 (the app is freed, which withdraws).
 * SIGUSR1 (sender): makes a fresh activity current (new id).
 * Exit 0 on timeout or signal, 1 when a libhandoff call fails, 2 on usage.
 */
#include <handoff.h>

#include <errno.h>
#include <sys/select.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_LIST 16

struct options {
    int sending, receiving;
    unsigned char key[32];
    const char *team, *bundle, *type, *title, *url;
    const char *declared[MAX_LIST];
    size_t declared_count;
    const char *peers[MAX_LIST];
    size_t peer_count;
    int port, multicast, send_only, fetch_timeout_ms, connection_reuse_ms;
    const char *device_name, *channel_address;
    long userinfo_bytes;
    int never_dispatch, auto_continue, offer_on_usr1, continue_times, continue_each, agent;
    double timeout;
};

struct peer {
    struct options o;
    handoff_application *app;
    handoff_responder *responder;
    handoff_activity *activity; /* sender: the current one */
    int continued_once;         /* receiver: auto-continue done */
    int continues_done;         /* receiver: continue_user_activity calls */
};

static volatile sig_atomic_t stop_requested, offer_requested;

static void on_signal(int sig)
{
    if (sig == SIGUSR1)
        offer_requested = 1;
    else
        stop_requested = 1;
}

/* ---- output ------------------------------------------------------------- */

static void put_value(const char *key, const char *value)
{
    const unsigned char *p = (const unsigned char *)(value ? value : "");
    printf(" %s=", key);
    for (; *p; p++) {
        if (*p < 0x21 || *p > 0x7e || *p == '%')
            printf("%%%02X", *p);
        else
            putchar(*p);
    }
}

static void put_long(const char *key, long value)
{
    printf(" %s=%ld", key, value);
}

static void end_line(void)
{
    putchar('\n');
    fflush(stdout);
}

static void die(const char *what)
{
    fflush(stdout);
    fprintf(stderr, "peer: %s failed: %d %s\n", what, handoff_last_error_code(),
            handoff_last_error_message());
    exit(1);
}

static void usage(const char *why)
{
    fprintf(stderr,
            "peer: %s\nusage: peer --send|--receive [--account-key HEX64] [--team T] [--bundle B]\n"
            "  [--declare TYPE]... [--type TYPE] [--title X] [--url URL] [--userinfo-bytes N]\n"
            "  [--port UDPPORT] [--peer HOST:PORT]... [--multicast] [--device-role full|send-only]\n"
            "  [--device-name N] [--channel-address HOST:PORT] [--fetch-timeout-ms N]\n"
            "  [--connection-reuse-ms N (negative: every handoff connects afresh)]\n"
            "  [--never-dispatch] [--offer-on-usr1] [--auto-continue [--continue-times N]]\n"
            "  [--continue-each] [--agent]\n"
            "  [--timeout SECONDS]\n",
            why);
    exit(2);
}

/* ---- userInfo ----------------------------------------------------------- */

static unsigned long fnv1a(const unsigned char *p, size_t n)
{
    unsigned long h = 2166136261UL;
    size_t i;
    for (i = 0; i < n; i++)
        h = ((h ^ p[i]) * 16777619UL) & 0xffffffffUL;
    return h;
}

/* Sender's responder: the activity is being saved, add the userInfo. */
static void sender_update(handoff_responder *responder, handoff_activity *activity, void *user_data)
{
    struct peer *s = user_data;
    size_t n = (size_t)s->o.userinfo_bytes, i;
    unsigned char *blob = malloc(n ? n : 1);
    handoff_value *info = handoff_value_new_dictionary();
    handoff_value *data, *count;
    (void)responder;
    if (!blob)
        exit(1);
    for (i = 0; i < n; i++)
        blob[i] = (unsigned char)((31 * i + 7) & 0xff);
    data = handoff_value_new_data(blob, n);
    count = handoff_value_new_integer((int64_t)n);
    if (!info || !data || !count || handoff_value_dictionary_set(info, "blob", data) != HANDOFF_OK ||
        handoff_value_dictionary_set(info, "count", count) != HANDOFF_OK ||
        handoff_activity_add_user_info_entries(activity, info) != HANDOFF_OK)
        die("building the userInfo");
    printf("saving");
    put_long("bytes", (long)n);
    end_line();
    handoff_value_free(count);
    handoff_value_free(data);
    handoff_value_free(info);
    free(blob);
}

/* The blob's length and checksum, and "count", of a received userInfo. */
static void describe_info(handoff_activity *activity)
{
    handoff_value *info = handoff_activity_copy_user_info(activity);
    const handoff_value *blob = handoff_value_dictionary_get(info, "blob");
    const handoff_value *count = handoff_value_dictionary_get(info, "count");
    size_t length = 0;
    const void *bytes = blob ? handoff_value_get_data(blob, &length) : NULL;
    int64_t n = -1;
    char sum[16];
    if (count)
        handoff_value_get_integer(count, &n);
    snprintf(sum, sizeof sum, "%08lx", bytes ? fnv1a(bytes, length) : 0UL);
    put_long("info-bytes", bytes ? (long)length : -1L);
    put_value("info-sum", sum);
    put_long("count", (long)n);
    handoff_value_free(info);
}

/* Receiver's responder: restore from a continued activity. */
static void receiver_restore(handoff_responder *responder, handoff_activity *activity, void *user_data)
{
    handoff_value *info = handoff_activity_copy_user_info(activity);
    const handoff_value *blob = handoff_value_dictionary_get(info, "blob");
    size_t length = 0;
    (void)responder;
    (void)user_data;
    if (!blob || !handoff_value_get_data(blob, &length))
        printf("restored info-bytes=-1");
    else
        printf("restored info-bytes=%lu", (unsigned long)length);
    end_line();
    handoff_value_free(info);
}

/* ---- application delegate ----------------------------------------------- */

static void print_remote(const char *event, const handoff_remote_activity *remote)
{
    printf("%s", event);
    put_value("id", handoff_remote_activity_get_id(remote));
    put_value("type", handoff_remote_activity_get_type(remote));
    put_value("title", handoff_remote_activity_get_title(remote));
    put_long("web", handoff_remote_activity_is_web_only(remote));
    put_value("device", handoff_remote_activity_get_device_name(remote));
    put_value("device-id", handoff_remote_activity_get_device_id(remote));
    put_value("url", handoff_remote_activity_get_webpage_url(remote));
    end_line();
}

static void continue_id(handoff_application *app, const char *id)
{
    if (handoff_application_continue(app, id) != HANDOFF_OK) {
        printf("continue-error");
        put_long("code", handoff_last_error_code());
        put_value("message", handoff_last_error_message());
        end_line();
    }
}

static void on_available(handoff_application *app, const handoff_remote_activity *remote, void *user_data)
{
    struct peer *s = user_data;
    print_remote("available", remote);
    if ((s->o.auto_continue && !s->continued_once) || s->o.continue_each) {
        s->continued_once = 1;
        continue_id(app, handoff_remote_activity_get_id(remote));
    }
}

static void on_updated(handoff_application *app, const handoff_remote_activity *remote, void *user_data)
{
    (void)app;
    (void)user_data;
    print_remote("updated", remote);
}

static void on_withdrawn(handoff_application *app, const handoff_remote_activity *remote, void *user_data)
{
    (void)app;
    (void)user_data;
    printf("withdrawn");
    put_value("id", handoff_remote_activity_get_id(remote));
    put_value("type", handoff_remote_activity_get_type(remote));
    end_line();
}

static int on_will_continue(handoff_application *app, const char *type, void *user_data)
{
    (void)app;
    (void)user_data;
    printf("will-continue");
    put_value("type", type);
    end_line();
    return 0;
}

static int on_continue(handoff_application *app, handoff_activity *activity,
                       handoff_restoration_handler *handler, void *user_data)
{
    struct peer *s = user_data;
    int status;
    printf("continued");
    put_value("type", handoff_activity_get_type(activity));
    put_value("id", handoff_activity_get_id(activity));
    put_value("title", handoff_activity_get_title(activity));
    describe_info(activity);
    end_line();
    status = handoff_restoration_handler_restore(handler, &s->responder, 1);
    handoff_restoration_handler_free(handler);
    if (status != HANDOFF_OK)
        die("handoff_restoration_handler_restore");
    if (++s->continues_done < s->o.continue_times)
        continue_id(app, handoff_activity_get_id(activity)); /* the same activity again */
    return 1;
}

static void on_fail(handoff_application *app, const char *type, int error, const char *message,
                    void *user_data)
{
    (void)app;
    (void)user_data;
    printf("failed");
    put_value("type", type);
    put_long("code", error);
    put_value("message", message);
    end_line();
}

static void on_webpage(handoff_application *app, const char *url, const handoff_remote_activity *remote,
                       void *user_data)
{
    (void)app;
    (void)remote;
    (void)user_data;
    printf("webpage");
    put_value("url", url);
    end_line();
}

static void on_was_continued(handoff_activity *activity, void *user_data)
{
    (void)user_data;
    printf("was-continued");
    put_value("id", handoff_activity_get_id(activity));
    end_line();
}

/* ---- sender ------------------------------------------------------------- */

/* Makes a fresh activity current (the previous one stops being offered). */
static void offer(struct peer *s)
{
    handoff_activity_delegate delegate = HANDOFF_ACTIVITY_DELEGATE_INIT;
    handoff_activity *activity = handoff_activity_new(s->o.type);
    if (!activity)
        die("handoff_activity_new");
    if (handoff_activity_set_title(activity, s->o.title) != HANDOFF_OK)
        die("handoff_activity_set_title");
    if (s->o.url && handoff_activity_set_webpage_url(activity, s->o.url) != HANDOFF_OK)
        die("handoff_activity_set_webpage_url");
    delegate.user_activity_was_continued = on_was_continued;
    if (handoff_activity_set_delegate(activity, &delegate, s, NULL) != HANDOFF_OK)
        die("handoff_activity_set_delegate");
    /* The userInfo comes from the responder, in a lazy save. */
    if (handoff_responder_set_user_activity(s->responder, activity) != HANDOFF_OK ||
        handoff_activity_set_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1) != HANDOFF_OK)
        die("preparing the save");
    if (handoff_application_become_current(s->app, activity) != HANDOFF_OK)
        die("handoff_application_become_current");
    handoff_activity_free(s->activity);
    s->activity = activity;
    printf("offering");
    put_value("id", handoff_activity_get_id(activity));
    put_value("type", s->o.type);
    end_line();
}

/* ---- options ------------------------------------------------------------ */

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static void parse_key(const char *hex, unsigned char key[32])
{
    int i;
    if (strlen(hex) != 64)
        usage("--account-key takes 64 hex digits");
    for (i = 0; i < 32; i++) {
        int hi = hex_digit(hex[2 * i]), lo = hex_digit(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            usage("--account-key takes 64 hex digits");
        key[i] = (unsigned char)(hi * 16 + lo);
    }
}

static void parse(int argc, char **argv, struct options *o)
{
    int i;
    memset(o, 0, sizeof *o);
    for (i = 0; i < 32; i++)
        o->key[i] = (unsigned char)i; /* docs/PROTOCOL.md's test key */
    o->team = "PEERTEAM1";
    o->bundle = "com.example.peer";
    o->type = "com.example.peer.activity";
    o->title = "peer-title";
    o->timeout = 30;
    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define FLAG(name) (strcmp(a, name) == 0)
#define VALUE(name) (strcmp(a, name) == 0 && (v ? (i++, 1) : (usage(name " needs a value"), 0)))
        if (FLAG("--send"))
            o->sending = 1;
        else if (FLAG("--receive"))
            o->receiving = 1;
        else if (FLAG("--multicast"))
            o->multicast = 1;
        else if (FLAG("--agent"))
            o->agent = 1;
        else if (FLAG("--never-dispatch"))
            o->never_dispatch = 1;
        else if (FLAG("--auto-continue"))
            o->auto_continue = 1;
        else if (FLAG("--offer-on-usr1"))
            o->offer_on_usr1 = 1;
        else if (FLAG("--continue-each"))
            o->continue_each = 1;
        else if (VALUE("--account-key"))
            parse_key(v, o->key);
        else if (VALUE("--team"))
            o->team = v;
        else if (VALUE("--bundle"))
            o->bundle = v;
        else if (VALUE("--declare")) {
            if (o->declared_count == MAX_LIST)
                usage("too many --declare");
            o->declared[o->declared_count++] = v;
        } else if (VALUE("--type"))
            o->type = v;
        else if (VALUE("--title"))
            o->title = v;
        else if (VALUE("--url"))
            o->url = v;
        else if (VALUE("--userinfo-bytes"))
            o->userinfo_bytes = atol(v);
        else if (VALUE("--port"))
            o->port = atoi(v);
        else if (VALUE("--peer")) {
            if (o->peer_count == MAX_LIST)
                usage("too many --peer");
            o->peers[o->peer_count++] = v;
        } else if (VALUE("--device-role")) {
            if (strcmp(v, "full") != 0 && strcmp(v, "send-only") != 0)
                usage("--device-role is full or send-only");
            o->send_only = strcmp(v, "send-only") == 0;
        } else if (VALUE("--device-name"))
            o->device_name = v;
        else if (VALUE("--channel-address"))
            o->channel_address = v;
        else if (VALUE("--continue-times"))
            o->continue_times = atoi(v);
        else if (VALUE("--fetch-timeout-ms"))
            o->fetch_timeout_ms = atoi(v);
        else if (VALUE("--connection-reuse-ms"))
            o->connection_reuse_ms = atoi(v);
        else if (VALUE("--timeout"))
            o->timeout = atof(v);
        else
            usage("unknown argument");
#undef FLAG
#undef VALUE
    }
    if (o->sending == o->receiving)
        usage("give exactly one of --send and --receive");
    if (o->userinfo_bytes < 0 || o->userinfo_bytes > 1000000)
        usage("--userinfo-bytes is 0..1000000");
    if (o->declared_count == 0)
        o->declared[o->declared_count++] = o->type;
}

/* ---- main loop ---------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    static struct peer s;
    struct sigaction sa;
    sigset_t handled, unblocked;
    handoff_manifest *manifest;
    handoff_account *account;
    handoff_application_delegate delegate = HANDOFF_APPLICATION_DELEGATE_INIT;
    handoff_responder_callbacks callbacks = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_continuity_options options = HANDOFF_CONTINUITY_OPTIONS_INIT;
    double deadline;
    size_t i;

    parse(argc, argv, &s.o);

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    /* The signals stay blocked except inside pselect (which then returns
     * EINTR): none is missed between a check and the wait, so the loop
     * need not wake up to look. The library's threads, started below,
     * inherit the mask and leave the signals to this one. */
    sigemptyset(&handled);
    sigaddset(&handled, SIGTERM);
    sigaddset(&handled, SIGINT);
    sigaddset(&handled, SIGUSR1);
    sigprocmask(SIG_BLOCK, &handled, &unblocked);
    sigdelset(&unblocked, SIGTERM);
    sigdelset(&unblocked, SIGINT);
    sigdelset(&unblocked, SIGUSR1);

    manifest = handoff_manifest_new(s.o.bundle, s.o.team);
    if (!manifest)
        die("handoff_manifest_new");
    for (i = 0; i < s.o.declared_count; i++)
        if (handoff_manifest_declare_activity_type(manifest, s.o.declared[i]) != HANDOFF_OK)
            die("handoff_manifest_declare_activity_type");

    delegate.activity_available = on_available;
    delegate.activity_updated = on_updated;
    delegate.activity_withdrawn = on_withdrawn;
    delegate.will_continue_user_activity = on_will_continue;
    delegate.continue_user_activity = on_continue;
    delegate.did_fail_to_continue_user_activity = on_fail;
    delegate.open_webpage = on_webpage;
    s.app = handoff_application_new(manifest, &delegate, &s, NULL);
    if (!s.app)
        die("handoff_application_new");
    handoff_manifest_free(manifest);

    if (s.o.sending)
        callbacks.update_user_activity_state = sender_update;
    else
        callbacks.restore_user_activity_state = receiver_restore;
    s.responder = handoff_responder_new(s.app, &callbacks, &s, NULL);
    if (!s.responder)
        die("handoff_responder_new");

    account = handoff_account_from_key(s.o.key, sizeof s.o.key);
    if (!account)
        die("handoff_account_from_key");
    options.account = account;
    if (s.o.agent) {
        /* Through the agent, which owns the device: no device-level option. */
        options.mode = HANDOFF_CONTINUITY_MODE_AGENT;
    } else {
        options.device_name = s.o.device_name;
        options.role = s.o.send_only ? HANDOFF_DEVICE_ROLE_SEND_ONLY : HANDOFF_DEVICE_ROLE_FULL;
        options.beacon_port = s.o.port;
        options.disable_multicast = !s.o.multicast;
        options.peers = s.o.peers;
        options.peer_count = s.o.peer_count;
        options.channel_address = s.o.channel_address;
    }
    options.fetch_timeout_ms = s.o.fetch_timeout_ms;
    options.connection_reuse_ms = s.o.connection_reuse_ms;
    if (handoff_application_start_continuity(s.app, &options) != HANDOFF_OK)
        die("handoff_application_start_continuity");
    handoff_account_free(account);

    printf("ready");
    put_value("role", s.o.sending ? "send" : "receive");
    put_value("device", s.o.device_name);
    end_line();
    if (s.o.sending && !s.o.offer_on_usr1)
        offer(&s);

    deadline = now_seconds() + s.o.timeout;
    while (!stop_requested && now_seconds() < deadline) {
        if (offer_requested && s.o.sending) {
            offer_requested = 0;
            offer(&s);
        }
        {
            /* Wait for the library's fd (a hung main thread: for nothing),
             * its next timer, the --timeout or a signal; nothing else. */
            int fd = handoff_application_get_fd(s.app);
            int wait = s.o.never_dispatch ? -1 : handoff_application_next_timeout(s.app);
            fd_set readable;
            double left = deadline - now_seconds();
            struct timespec ts;
            if (left < 0)
                left = 0;
            if (wait >= 0 && wait / 1000.0 < left)
                left = wait / 1000.0;
            ts.tv_sec = (time_t)left;
            ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
            FD_ZERO(&readable);
            if (!s.o.never_dispatch)
                FD_SET(fd, &readable);
            if (pselect(s.o.never_dispatch ? 0 : fd + 1, &readable, NULL, NULL, &ts, &unblocked) < 0 && errno != EINTR)
                die("pselect");
            if (s.o.never_dispatch)
                continue; /* a hung main thread never dispatches again */
            if (handoff_application_dispatch(s.app) != HANDOFF_OK)
                die("handoff_application_dispatch");
        }
    }

    printf("exit");
    put_value("reason", stop_requested ? "signal" : "timeout");
    end_line();
    handoff_activity_free(s.activity);
    handoff_responder_free(s.responder);
    handoff_application_free(s.app);
    return 0;
}
