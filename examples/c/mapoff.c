/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* mapoff: a map app that hands off its viewport, after Apple's MapOff
 * sample. Run a receiver on one device and a sender on another (or both on
 * this machine, as `make demo` does):
 *
 *   mapoff receive --port 52381 --peer 127.0.0.1:52380
 *   mapoff send    --port 52380 --peer 127.0.0.1:52381
 *
 * Each process is the person's device as `handoff device` shows and names
 * it (the device file in $XDG_CONFIG_HOME/handoff). Apps of one device do
 * not hand off to each other, so to run both on one machine give each its
 * own XDG_CONFIG_HOME, as `make demo` does.
 *
 * Built with -DMAPOFF_MODE='"send"' or '"receive"' (`make examples`:
 * mapoff-sender, mapoff-receiver) the mode is fixed and not given.
 *
 * The sender shows Cupertino and makes its viewport the current activity;
 * the receiver sees it offered, continues it, and its map view restores the
 * center and span. Both drive libhandoff from their own poll() loop, the
 * way a GUI toolkit's main loop would.
 *
 * Both use an embedded demo account (below) so no set-up is needed. A real
 * app loads the person's account: handoff_account_load(NULL).
 */
#include <handoff.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ACTIVITY_TYPE "com.example.mapoff.view-region"

/* DEMO ONLY: a published key, so anyone running the demo shares this
 * "account". Never use a fixed key in an app. */
static const unsigned char demo_account_key[32] = {
    0x6c, 0x69, 0x62, 0x68, 0x61, 0x6e, 0x64, 0x6f, 0x66, 0x66, 0x20, 0x64, 0x65, 0x6d, 0x6f, 0x20,
    0x61, 0x63, 0x63, 0x6f, 0x75, 0x6e, 0x74, 0x20, 0x6b, 0x65, 0x79, 0x20, 0x76, 0x31, 0x00, 0x01,
};

/* The app's state: a map viewport. */
struct map_view {
    double latitude, longitude;             /* center */
    double latitude_delta, longitude_delta; /* span */
    int restored;
};

struct app_state {
    handoff_application *app;
    handoff_responder *map_responder;
    struct map_view map;
    int done;   /* 1: success, -1: failure */
    int receiving;
};

static void fail(const char *what)
{
    fprintf(stderr, "mapoff: %s: %s\n", what, handoff_last_error_message());
    exit(1);
}

static void put_real(handoff_value *dict, const char *key, double x)
{
    handoff_value *v = handoff_value_new_real(x);
    if (handoff_value_dictionary_set(dict, key, v) != HANDOFF_OK)
        fail("dictionary_set");
    handoff_value_free(v);
}

static double get_real(const handoff_value *dict, const char *key)
{
    double x = 0;
    const handoff_value *v = handoff_value_dictionary_get(dict, key);
    if (!v || handoff_value_get_real(v, &x) != HANDOFF_OK)
        fprintf(stderr, "mapoff: userInfo has no real \"%s\"\n", key);
    return x;
}

/* ---- the map view as a responder ---------------------------------------- */

/* Saving: write the viewport into the activity (Apple:
 * updateUserActivityState). Runs lazily after needs_save is set, and right
 * before the activity is sent. */
static void map_update(handoff_responder *responder, handoff_activity *activity, void *user_data)
{
    struct map_view *map = user_data;
    handoff_value *info = handoff_value_new_dictionary();
    (void)responder;
    put_real(info, "latitude", map->latitude);
    put_real(info, "longitude", map->longitude);
    put_real(info, "latitudeDelta", map->latitude_delta);
    put_real(info, "longitudeDelta", map->longitude_delta);
    if (handoff_activity_add_user_info_entries(activity, info) != HANDOFF_OK)
        fail("add_user_info_entries");
    handoff_value_free(info);
}

/* Restoring: read the viewport back (Apple: restoreUserActivityState). */
static void map_restore(handoff_responder *responder, handoff_activity *activity, void *user_data)
{
    struct map_view *map = user_data;
    handoff_value *info = handoff_activity_copy_user_info(activity);
    (void)responder;
    map->latitude = get_real(info, "latitude");
    map->longitude = get_real(info, "longitude");
    map->latitude_delta = get_real(info, "latitudeDelta");
    map->longitude_delta = get_real(info, "longitudeDelta");
    map->restored = 1;
    handoff_value_free(info);
}

/* ---- the application delegate ------------------------------------------- */

static void on_available(handoff_application *app, const handoff_remote_activity *remote, void *user_data)
{
    struct app_state *s = user_data;
    const char *title = handoff_remote_activity_get_title(remote);
    if (!s->receiving || strcmp(handoff_remote_activity_get_type(remote), ACTIVITY_TYPE) != 0)
        return;
    printf("receiver: %s offers \"%s\"; continuing it\n",
           handoff_remote_activity_get_device_name(remote), title ? title : "");
    if (handoff_application_continue(app, handoff_remote_activity_get_id(remote)) != HANDOFF_OK)
        fail("continue");
}

static int on_will_continue(handoff_application *app, const char *type, void *user_data)
{
    (void)app;
    (void)user_data;
    printf("receiver: fetching %s\n", type);
    return 1;
}

static int on_continue(handoff_application *app, handoff_activity *activity,
                       handoff_restoration_handler *handler, void *user_data)
{
    struct app_state *s = user_data;
    (void)app;
    (void)activity;
    /* Hand the activity to the responders that restore it. */
    if (handoff_restoration_handler_restore(handler, &s->map_responder, 1) != HANDOFF_OK)
        fail("restore");
    handoff_restoration_handler_free(handler);
    printf("receiver: restored map center %.4f, %.4f span %.3f x %.3f\n", s->map.latitude,
           s->map.longitude, s->map.latitude_delta, s->map.longitude_delta);
    s->done = s->map.restored ? 1 : -1;
    return 1;
}

static void on_fail(handoff_application *app, const char *type, int error, const char *message,
                    void *user_data)
{
    struct app_state *s = user_data;
    (void)app;
    fprintf(stderr, "receiver: could not continue %s: error %d: %s\n", type, error, message);
    s->done = -1;
}

static void on_was_continued(handoff_activity *activity, void *user_data)
{
    struct app_state *s = user_data;
    printf("sender: \"%s\" was continued on the other device\n", handoff_activity_get_title(activity));
    s->done = 1;
}

/* ---- main --------------------------------------------------------------- */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#ifdef MAPOFF_MODE
#define MODE_USAGE ""
#else
#define MODE_USAGE " send|receive"
#endif

static void usage(void)
{
    fprintf(stderr, "usage: mapoff" MODE_USAGE " [--port UDP-PORT] [--peer HOST:PORT]... "
                    "[--multicast] [--timeout SECONDS]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static struct app_state s;
    const char *peers[16];
    size_t peer_count = 0;
    int port = 0, multicast = 0, i;
    double timeout = 20;

#ifdef MAPOFF_MODE
    const char *mode = MAPOFF_MODE;
    int first = 1;
#else
    const char *mode = argc < 2 ? "" : argv[1];
    int first = 2;
#endif
    if (strcmp(mode, "send") != 0 && strcmp(mode, "receive") != 0)
        usage();
    s.receiving = strcmp(mode, "receive") == 0;
    for (i = first; i < argc; i++) {
        if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
            port = atoi(argv[++i]);
        else if (strcmp(argv[i], "--peer") == 0 && i + 1 < argc && peer_count < 16)
            peers[peer_count++] = argv[++i];
        else if (strcmp(argv[i], "--multicast") == 0)
            multicast = 1;
        else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc)
            timeout = atof(argv[++i]);
        else
            usage();
    }

    /* Who the app is: its manifest (an Info.plist would do too). */
    handoff_manifest *manifest = handoff_manifest_new("com.example.mapoff", "MAPOFFDEMO");
    if (!manifest || handoff_manifest_declare_activity_type(manifest, ACTIVITY_TYPE) != HANDOFF_OK)
        fail("manifest");

    handoff_application_delegate delegate = HANDOFF_APPLICATION_DELEGATE_INIT;
    delegate.activity_available = on_available;
    delegate.will_continue_user_activity = on_will_continue;
    delegate.continue_user_activity = on_continue;
    delegate.did_fail_to_continue_user_activity = on_fail;
    s.app = handoff_application_new(manifest, &delegate, &s, NULL);
    if (!s.app)
        fail("application_new");
    handoff_manifest_free(manifest);

    handoff_responder_callbacks map_callbacks = HANDOFF_RESPONDER_CALLBACKS_INIT;
    map_callbacks.update_user_activity_state = map_update;
    map_callbacks.restore_user_activity_state = map_restore;
    s.map_responder = handoff_responder_new(s.app, &map_callbacks, &s.map, NULL);
    if (!s.map_responder)
        fail("responder_new");

    /* Reach the other devices of the (demo) account. */
    handoff_account *account = handoff_account_from_key(demo_account_key, sizeof demo_account_key);
    handoff_continuity_options options = HANDOFF_CONTINUITY_OPTIONS_INIT;
    options.account = account;
    /* No device_id or device_name: this is the person's device, named with
     * `handoff device --name`. */
    options.beacon_port = port;
    options.disable_multicast = !multicast;
    options.peers = peers;
    options.peer_count = peer_count;
    if (handoff_application_start_continuity(s.app, &options) != HANDOFF_OK)
        fail("start_continuity");
    handoff_account_free(account);

    handoff_activity *activity = NULL;
    if (!s.receiving) {
        /* The sender looks at Cupertino and offers that viewport. */
        s.map.latitude = 37.3349;
        s.map.longitude = -122.0090;
        s.map.latitude_delta = 0.05;
        s.map.longitude_delta = 0.05;
        activity = handoff_activity_new(ACTIVITY_TYPE);
        if (!activity)
            fail("activity_new");
        handoff_activity_set_title(activity, "Cupertino");
        const char *required[] = {"latitude", "longitude"};
        handoff_activity_set_required_user_info_keys(activity, required, 2);
        handoff_activity_delegate activity_delegate = HANDOFF_ACTIVITY_DELEGATE_INIT;
        activity_delegate.user_activity_was_continued = on_was_continued;
        handoff_activity_set_delegate(activity, &activity_delegate, &s, NULL);
        handoff_responder_set_user_activity(s.map_responder, activity);
        handoff_activity_set_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
        if (handoff_application_become_current(s.app, activity) != HANDOFF_OK)
            fail("become_current");
        printf("sender: offering map center %.4f, %.4f span %.3f x %.3f\n", s.map.latitude,
               s.map.longitude, s.map.latitude_delta, s.map.longitude_delta);
    } else {
        printf("receiver: waiting for an activity\n");
    }
    fflush(stdout);

    /* The host's own main loop: libhandoff is one more file descriptor. */
    struct pollfd fds[1] = {{handoff_application_get_fd(s.app), POLLIN, 0}};
    double deadline = now_seconds() + timeout;
    while (!s.done) {
        double left = deadline - now_seconds();
        if (left <= 0) {
            fprintf(stderr, "mapoff: nothing happened within %.0f s\n", timeout);
            s.done = -1;
            break;
        }
        int wait = handoff_application_next_timeout(s.app);
        int cap = (int)(left * 1000) + 1;
        if (poll(fds, 1, wait < 0 || wait > cap ? cap : wait) < 0 && errno != EINTR)
            break;
        if (handoff_application_dispatch(s.app) != HANDOFF_OK)
            fail("dispatch");
        fflush(stdout);
    }

    handoff_activity_free(activity);
    handoff_responder_free(s.map_responder);
    handoff_application_free(s.app);
    return s.done == 1 ? 0 : 1;
}
