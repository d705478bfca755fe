/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A stand-in desktop for the agent's D-Bus tests, on a private bus the
 * test starts (never the person's session bus):
 *
 *  --notifications   owns org.freedesktop.Notifications and serves the
 *                    Desktop Notifications spec's methods;
 *  --app NAME PATH   owns NAME and serves org.freedesktop.Application at
 *                    PATH (a DBusActivatable app, also startable by the
 *                    bus through a service file); with
 *    --fail-activate   Activate answers an error (org.freedesktop.DBus.Error.Failed);
 *    --env-file FILE -- COMMAND ARGS...
 *                      the first Activate also starts COMMAND (the app's
 *                      real part, e.g. a handoff app) with the NAME=value
 *                      lines of FILE added to its environment and the
 *                      platform data's activation-token as
 *                      XDG_ACTIVATION_TOKEN, as a GApplication hands it on;
 *  --systemd         owns org.freedesktop.systemd1 and records
 *                    StartTransientUnit(name, mode, properties: PIDs), as a
 *                    user manager would be asked (and answers a job path);
 *
 * and records every call it receives as one JSON line in --log FILE. Its
 * test interface org.handoff.Test (at /org/handoff/Test) makes it act as
 * the person would: InvokeAction(u id, s action, s token) emits
 * ActivationToken (when token is not empty) then ActionInvoked, then
 * closes it (NotificationClosed(id, 2)) as real servers do after an action
 * unless it is resident; Dismiss(u id) emits NotificationClosed(id, 2);
 * Expire(u id) emits NotificationClosed(id, 1) (its timeout ran out);
 * Hang() never answers (a call that stays pending). Like
 * notification-daemon, CloseNotification of an id that is not open (closed
 * by a click or a dismissal) answers an error, "Invalid notification
 * identifier" (the race a client must take calmly).
 *
 * The bus is --address ADDR, else DBUS_STARTER_ADDRESS (set by the bus when
 * it starts us), else DBUS_SESSION_BUS_ADDRESS. Prints "ready\n" on stdout
 * once its names are owned. Exits when the bus goes away.
 *
 * Build: cc fake_notifications.c $(pkg-config --cflags --libs libsystemd)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

static FILE *logfile;
static const char *capabilities = "actions,body,body-markup";
static uint32_t next_id = 1;
static volatile sig_atomic_t stop;
static int fail_activate;
static const char *env_file;
static char **app_command;      /* NULL-terminated, after "--" */
static int app_started;
/* The last platform data's activation-token (json_vardict keeps it). */
static char last_token[512];
/* Which ids are open (shown, not closed); ids past the table count as open. */
#define MAX_TRACKED_IDS 4096
static unsigned char open_ids[MAX_TRACKED_IDS];

static int is_open(uint32_t id) { return id >= MAX_TRACKED_IDS || open_ids[id]; }
static void set_open(uint32_t id, int open) { if (id < MAX_TRACKED_IDS) open_ids[id] = (unsigned char)open; }

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* Writes an a{sv} the message is positioned at as a JSON object. */
static int json_vardict(FILE *f, sd_bus_message *m) {
    int r = sd_bus_message_enter_container(m, 'a', "{sv}");
    if (r < 0) return r;
    fputc('{', f);
    int first = 1;
    while ((r = sd_bus_message_enter_container(m, 'e', "sv")) > 0) {
        const char *key;
        char type;
        const char *contents;
        if ((r = sd_bus_message_read_basic(m, 's', &key)) < 0) return r;
        if ((r = sd_bus_message_peek_type(m, &type, &contents)) < 0) return r;
        if (!first) fputc(',', f);
        first = 0;
        json_string(f, key);
        fputc(':', f);
        if ((r = sd_bus_message_enter_container(m, 'v', contents)) < 0) return r;
        if (strcmp(contents, "s") == 0) {
            const char *s;
            if ((r = sd_bus_message_read_basic(m, 's', &s)) < 0) return r;
            json_string(f, s);
            if (strcmp(key, "activation-token") == 0) snprintf(last_token, sizeof last_token, "%s", s);
        } else if (strcmp(contents, "y") == 0) {
            uint8_t y;
            if ((r = sd_bus_message_read_basic(m, 'y', &y)) < 0) return r;
            fprintf(f, "%u", y);
        } else if (strcmp(contents, "b") == 0) {
            int b;
            if ((r = sd_bus_message_read_basic(m, 'b', &b)) < 0) return r;
            fputs(b ? "true" : "false", f);
        } else if (strcmp(contents, "i") == 0) {
            int32_t i;
            if ((r = sd_bus_message_read_basic(m, 'i', &i)) < 0) return r;
            fprintf(f, "%d", i);
        } else if (strcmp(contents, "u") == 0) {
            uint32_t u;
            if ((r = sd_bus_message_read_basic(m, 'u', &u)) < 0) return r;
            fprintf(f, "%u", u);
        } else {
            if ((r = sd_bus_message_skip(m, contents)) < 0) return r;
            fprintf(f, "\"<%s>\"", contents);
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    fputc('}', f);
    return sd_bus_message_exit_container(m);
}

static int method_notify(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    const char *app, *icon, *summary, *body;
    uint32_t replaces;
    int r = sd_bus_message_read(m, "susss", &app, &replaces, &icon, &summary, &body);
    if (r < 0) return r;
    uint32_t id = replaces != 0 && replaces < next_id ? replaces : next_id++;
    fprintf(logfile, "{\"call\":\"Notify\",\"id\":%u,\"app_name\":", id);
    json_string(logfile, app);
    fprintf(logfile, ",\"replaces_id\":%u,\"app_icon\":", replaces);
    json_string(logfile, icon);
    fputs(",\"summary\":", logfile);
    json_string(logfile, summary);
    fputs(",\"body\":", logfile);
    json_string(logfile, body);
    fputs(",\"actions\":[", logfile);
    if ((r = sd_bus_message_enter_container(m, 'a', "s")) < 0) return r;
    const char *action;
    for (int n = 0; (r = sd_bus_message_read_basic(m, 's', &action)) > 0; n++) {
        if (n) fputc(',', logfile);
        json_string(logfile, action);
    }
    if (r < 0 || (r = sd_bus_message_exit_container(m)) < 0) return r;
    fputs("],\"hints\":", logfile);
    if ((r = json_vardict(logfile, m)) < 0) return r;
    int32_t expire;
    if ((r = sd_bus_message_read_basic(m, 'i', &expire)) < 0) return r;
    fprintf(logfile, ",\"expire_timeout\":%d}\n", expire);
    fflush(logfile);
    set_open(id, 1);
    return sd_bus_reply_method_return(m, "u", id);
}

static int method_close(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    uint32_t id;
    int r = sd_bus_message_read(m, "u", &id);
    if (r < 0) return r;
    fprintf(logfile, "{\"call\":\"CloseNotification\",\"id\":%u}\n", id);
    fflush(logfile);
    if (!is_open(id))
        return sd_bus_reply_method_errorf(m, "org.freedesktop.Notifications.Error.InvalidId",
                                          "Invalid notification identifier");
    set_open(id, 0);
    sd_bus *bus = sd_bus_message_get_bus(m);
    r = sd_bus_emit_signal(bus, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                           "NotificationClosed", "uu", id, 3u);
    if (r < 0) return r;
    return sd_bus_reply_method_return(m, "");
}

static int method_capabilities(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    fputs("{\"call\":\"GetCapabilities\"}\n", logfile);
    fflush(logfile);
    sd_bus_message *reply = NULL;
    int r = sd_bus_message_new_method_return(m, &reply);
    if (r < 0) return r;
    char *list = strdup(capabilities);
    r = sd_bus_message_open_container(reply, 'a', "s");
    for (char *save = NULL, *cap = strtok_r(list, ",", &save); r >= 0 && cap; cap = strtok_r(NULL, ",", &save))
        r = sd_bus_message_append_basic(reply, 's', cap);
    if (r >= 0) r = sd_bus_message_close_container(reply);
    if (r >= 0) r = sd_bus_send(NULL, reply, NULL);
    free(list);
    sd_bus_message_unref(reply);
    return r < 0 ? r : 1;
}

static int method_server_information(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    return sd_bus_reply_method_return(m, "ssss", "fake_notifications", "handoff tests", "0", "1.2");
}

static int method_invoke_action(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    uint32_t id;
    const char *action, *token;
    int r = sd_bus_message_read(m, "uss", &id, &action, &token);
    if (r < 0) return r;
    sd_bus *bus = sd_bus_message_get_bus(m);
    if (token[0]) {
        r = sd_bus_emit_signal(bus, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                               "ActivationToken", "us", id, token);
        if (r < 0) return r;
    }
    r = sd_bus_emit_signal(bus, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                           "ActionInvoked", "us", id, action);
    if (r < 0) return r;
    if (is_open(id)) {
        set_open(id, 0);
        r = sd_bus_emit_signal(bus, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                               "NotificationClosed", "uu", id, 2u);
        if (r < 0) return r;
    }
    return sd_bus_reply_method_return(m, "");
}

/* Closes `id` with `reason` (1 expired, 2 dismissed), as the server would. */
static int close_with(sd_bus_message *m, uint32_t reason) {
    uint32_t id;
    int r = sd_bus_message_read(m, "u", &id);
    if (r < 0) return r;
    set_open(id, 0);
    r = sd_bus_emit_signal(sd_bus_message_get_bus(m), "/org/freedesktop/Notifications",
                           "org.freedesktop.Notifications", "NotificationClosed", "uu", id, reason);
    if (r < 0) return r;
    return sd_bus_reply_method_return(m, "");
}

static int method_dismiss(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    return close_with(m, 2u);
}

/* A server whose timeout ran out (dunst's and xfce4-notifyd's 10 s). */
static int method_expire(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    return close_with(m, 1u);
}

static int method_hang(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)m;
    (void)userdata;
    (void)error;
    fputs("{\"call\":\"Hang\"}\n", logfile);
    fflush(logfile);
    return 1; /* handled, and no reply ever */
}

/* Starts the app's real part once: its environment plus FILE's lines and
 * the token. Not waited for (SIGCHLD is ignored: no zombie). */
static void start_app_command(void) {
    if (!app_command || app_started) return;
    app_started = 1;
    pid_t pid = fork();
    if (pid != 0) {
        fprintf(logfile, "{\"event\":\"started\",\"pid\":%ld}\n", (long)pid);
        fflush(logfile);
        return;
    }
    if (env_file) {
        FILE *f = fopen(env_file, "re");
        char line[8192];
        while (f && fgets(line, sizeof line, f)) {
            line[strcspn(line, "\n")] = 0;
            char *eq = strchr(line, '=');
            if (!eq) continue;
            *eq = 0;
            setenv(line, eq + 1, 1);
        }
        if (f) fclose(f);
    }
    unsetenv("XDG_ACTIVATION_TOKEN");
    unsetenv("DESKTOP_STARTUP_ID");
    if (last_token[0]) setenv("XDG_ACTIVATION_TOKEN", last_token, 1);
    execvp(app_command[0], app_command);
    _exit(127);
}

static int method_activate(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    last_token[0] = 0;
    fputs("{\"call\":\"Activate\",\"path\":", logfile);
    json_string(logfile, sd_bus_message_get_path(m));
    fputs(",\"destination\":", logfile);
    json_string(logfile, sd_bus_message_get_destination(m) ? sd_bus_message_get_destination(m) : "");
    fprintf(logfile, ",\"pid\":%ld,\"platform_data\":", (long)getpid());
    int r = json_vardict(logfile, m);
    fputs("}\n", logfile);
    fflush(logfile);
    if (r < 0) return r;
    if (fail_activate) return sd_bus_error_set(error, "org.freedesktop.DBus.Error.Failed", "told to fail (--fail-activate)");
    start_app_command();
    return sd_bus_reply_method_return(m, "");
}

static int method_start_transient_unit(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata;
    (void)error;
    const char *name, *mode;
    int r = sd_bus_message_read(m, "ss", &name, &mode);
    if (r < 0) return r;
    fputs("{\"call\":\"StartTransientUnit\",\"name\":", logfile);
    json_string(logfile, name);
    fputs(",\"mode\":", logfile);
    json_string(logfile, mode);
    fputs(",\"pids\":[", logfile);
    if ((r = sd_bus_message_enter_container(m, 'a', "(sv)")) < 0) return r;
    int n = 0;
    while ((r = sd_bus_message_enter_container(m, 'r', "sv")) > 0) {
        const char *key, *contents;
        char type;
        if ((r = sd_bus_message_read_basic(m, 's', &key)) < 0) return r;
        if ((r = sd_bus_message_peek_type(m, &type, &contents)) < 0) return r;
        if (strcmp(key, "PIDs") == 0 && strcmp(contents, "au") == 0) {
            if ((r = sd_bus_message_enter_container(m, 'v', "au")) < 0) return r;
            if ((r = sd_bus_message_enter_container(m, 'a', "u")) < 0) return r;
            uint32_t pid;
            while ((r = sd_bus_message_read_basic(m, 'u', &pid)) > 0) fprintf(logfile, "%s%u", n++ ? "," : "", pid);
            if (r < 0) return r;
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;
            if ((r = sd_bus_message_exit_container(m)) < 0) return r;
        } else if ((r = sd_bus_message_skip(m, "v")) < 0) {
            return r;
        }
        if ((r = sd_bus_message_exit_container(m)) < 0) return r;
    }
    if (r < 0) return r;
    fputs("]}\n", logfile);
    fflush(logfile);
    return sd_bus_reply_method_return(m, "o", "/org/freedesktop/systemd1/job/1");
}

static const sd_bus_vtable notifications_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Notify", "susssasa{sv}i", "u", method_notify, 0),
    SD_BUS_METHOD("CloseNotification", "u", "", method_close, 0),
    SD_BUS_METHOD("GetCapabilities", "", "as", method_capabilities, 0),
    SD_BUS_METHOD("GetServerInformation", "", "ssss", method_server_information, 0),
    SD_BUS_SIGNAL("NotificationClosed", "uu", 0),
    SD_BUS_SIGNAL("ActionInvoked", "us", 0),
    SD_BUS_SIGNAL("ActivationToken", "us", 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable test_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("InvokeAction", "uss", "", method_invoke_action, 0),
    SD_BUS_METHOD("Dismiss", "u", "", method_dismiss, 0),
    SD_BUS_METHOD("Expire", "u", "", method_expire, 0),
    SD_BUS_METHOD("Hang", "", "", method_hang, 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable application_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("Activate", "a{sv}", "", method_activate, 0),
    SD_BUS_VTABLE_END,
};

static const sd_bus_vtable systemd_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("StartTransientUnit", "ssa(sv)a(sa(sv))", "o", method_start_transient_unit, 0),
    SD_BUS_VTABLE_END,
};

static void on_signal(int number) {
    (void)number;
    stop = 1;
}

static int fail(const char *what, int r) {
    fprintf(stderr, "fake_notifications: %s: %s\n", what, strerror(-r));
    return 1;
}

int main(int argc, char **argv) {
    const char *address = NULL, *log_path = NULL, *app_name = NULL, *app_path = NULL;
    int notifications = 0, systemd = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--address") == 0 && i + 1 < argc) address = argv[++i];
        else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) log_path = argv[++i];
        else if (strcmp(argv[i], "--capabilities") == 0 && i + 1 < argc) capabilities = argv[++i];
        else if (strcmp(argv[i], "--notifications") == 0) notifications = 1;
        else if (strcmp(argv[i], "--app") == 0 && i + 2 < argc) { app_name = argv[++i]; app_path = argv[++i]; }
        else if (strcmp(argv[i], "--fail-activate") == 0) fail_activate = 1;
        else if (strcmp(argv[i], "--systemd") == 0) systemd = 1;
        else if (strcmp(argv[i], "--env-file") == 0 && i + 1 < argc) env_file = argv[++i];
        else if (strcmp(argv[i], "--") == 0 && i + 1 < argc) { app_command = argv + i + 1; break; }
        else { fprintf(stderr, "fake_notifications: unknown argument %s\n", argv[i]); return 2; }
    }
    if (!address) address = getenv("DBUS_STARTER_ADDRESS");
    if (!address) address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (!address || !log_path || (!notifications && !app_name && !systemd)) {
        fprintf(stderr, "usage: fake_notifications [--address ADDR] --log FILE [--notifications] [--systemd]\n"
                        "       [--app NAME PATH [--fail-activate] [--env-file FILE -- COMMAND ARGS...]]\n");
        return 2;
    }
    logfile = fopen(log_path, "ae");
    if (!logfile) { perror(log_path); return 1; }
    struct sigaction action = {.sa_handler = on_signal};
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
    signal(SIGCHLD, SIG_IGN);

    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r >= 0) r = sd_bus_set_address(bus, address);
    if (r >= 0) r = sd_bus_set_bus_client(bus, 1);
    if (r >= 0) r = sd_bus_start(bus);
    if (r < 0) return fail("connect", r);
    if (notifications) {
        r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                                     notifications_vtable, NULL);
        if (r < 0) return fail("notifications object", r);
        r = sd_bus_add_object_vtable(bus, NULL, "/org/handoff/Test", "org.handoff.Test", test_vtable, NULL);
        if (r < 0) return fail("test object", r);
        r = sd_bus_request_name(bus, "org.freedesktop.Notifications", 0);
        if (r < 0) return fail("own org.freedesktop.Notifications", r);
    }
    if (app_name) {
        r = sd_bus_add_object_vtable(bus, NULL, app_path, "org.freedesktop.Application", application_vtable, NULL);
        if (r < 0) return fail("application object", r);
        r = sd_bus_request_name(bus, app_name, 0);
        if (r < 0) return fail("own the application name", r);
    }
    if (systemd) {
        r = sd_bus_add_object_vtable(bus, NULL, "/org/freedesktop/systemd1", "org.freedesktop.systemd1.Manager",
                                     systemd_vtable, NULL);
        if (r < 0) return fail("systemd object", r);
        r = sd_bus_request_name(bus, "org.freedesktop.systemd1", 0);
        if (r < 0) return fail("own org.freedesktop.systemd1", r);
    }
    fprintf(logfile, "{\"event\":\"ready\",\"pid\":%ld}\n", (long)getpid());
    fflush(logfile);
    printf("ready\n");
    fflush(stdout);

    while (!stop) {
        r = sd_bus_process(bus, NULL);
        if (r < 0) break;  /* the bus went away */
        if (r > 0) continue;
        r = sd_bus_wait(bus, UINT64_MAX);
        if (r < 0 && r != -EINTR) break;
    }
    sd_bus_flush_close_unref(bus);
    fclose(logfile);
    return 0;
}
