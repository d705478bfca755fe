/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A stand-in tray for the agent's tray tests, on a private bus the test
 * starts (never the person's session bus): owns
 * org.kde.StatusNotifierWatcher at /StatusNotifierWatcher, accepts
 * RegisterStatusNotifierItem as a panel's watcher does (answers, remembers
 * the item, emits StatusNotifierItemRegistered) and records each call as one
 * JSON line in --log FILE: {"call":"RegisterStatusNotifierItem",
 * "service":..., "sender":...}. The test reads the item and its menu
 * itself (busctl), as a host would.
 *
 * The bus is --address ADDR, else DBUS_SESSION_BUS_ADDRESS. Prints
 * "ready\n" on stdout once the name is owned. Exits on SIGTERM or when the
 * bus goes away.
 *
 * Build: cc fake_watcher.c $(pkg-config --cflags --libs libsystemd)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-bus.h>

#define MAX_ITEMS 16

static FILE *logfile;
static volatile sig_atomic_t stop;
static char *items[MAX_ITEMS + 1];
static int item_count;

static void json_string(FILE *f, const char *s) {
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

static int method_register(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    const char *service;
    int r = sd_bus_message_read(m, "s", &service);
    if (r < 0) return r;
    const char *sender = sd_bus_message_get_sender(m);
    fputs("{\"call\":\"RegisterStatusNotifierItem\",\"service\":", logfile);
    json_string(logfile, service);
    fputs(",\"sender\":", logfile);
    json_string(logfile, sender ? sender : "");
    fputs("}\n", logfile);
    fflush(logfile);
    if (item_count < MAX_ITEMS) items[item_count++] = strdup(service);
    r = sd_bus_emit_signal(sd_bus_message_get_bus(m), "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher",
                           "StatusNotifierItemRegistered", "s", service);
    if (r < 0) return r;
    return sd_bus_reply_method_return(m, "");
}

static int method_register_host(sd_bus_message *m, void *userdata, sd_bus_error *error) {
    (void)userdata; (void)error;
    return sd_bus_reply_method_return(m, "");
}

static int property_items(sd_bus *bus, const char *path, const char *interface, const char *property,
                          sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append_strv(reply, items);
}

static int property_true(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "b", 1);
}

static int property_zero(sd_bus *bus, const char *path, const char *interface, const char *property,
                         sd_bus_message *reply, void *userdata, sd_bus_error *error) {
    (void)bus; (void)path; (void)interface; (void)property; (void)userdata; (void)error;
    return sd_bus_message_append(reply, "i", 0);
}

static const sd_bus_vtable watcher_vtable[] = {
    SD_BUS_VTABLE_START(0),
    SD_BUS_METHOD("RegisterStatusNotifierItem", "s", "", method_register, 0),
    SD_BUS_METHOD("RegisterStatusNotifierHost", "s", "", method_register_host, 0),
    SD_BUS_PROPERTY("RegisteredStatusNotifierItems", "as", property_items, 0, 0),
    SD_BUS_PROPERTY("IsStatusNotifierHostRegistered", "b", property_true, 0, 0),
    SD_BUS_PROPERTY("ProtocolVersion", "i", property_zero, 0, 0),
    SD_BUS_SIGNAL("StatusNotifierItemRegistered", "s", 0),
    SD_BUS_VTABLE_END,
};

static void on_signal(int number) {
    (void)number;
    stop = 1;
}

int main(int argc, char **argv) {
    const char *address = NULL, *log_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--address") == 0 && i + 1 < argc) address = argv[++i];
        else if (strcmp(argv[i], "--log") == 0 && i + 1 < argc) log_path = argv[++i];
        else { fprintf(stderr, "fake_watcher: unknown argument %s\n", argv[i]); return 2; }
    }
    if (!address) address = getenv("DBUS_SESSION_BUS_ADDRESS");
    if (!address || !log_path) {
        fprintf(stderr, "usage: fake_watcher [--address ADDR] --log FILE\n");
        return 2;
    }
    logfile = fopen(log_path, "ae");
    if (!logfile) { perror(log_path); return 1; }
    struct sigaction action = {.sa_handler = on_signal};
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);

    sd_bus *bus = NULL;
    int r = sd_bus_new(&bus);
    if (r >= 0) r = sd_bus_set_address(bus, address);
    if (r >= 0) r = sd_bus_set_bus_client(bus, 1);
    if (r >= 0) r = sd_bus_start(bus);
    if (r >= 0) r = sd_bus_add_object_vtable(bus, NULL, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher",
                                             watcher_vtable, NULL);
    if (r >= 0) r = sd_bus_request_name(bus, "org.kde.StatusNotifierWatcher", 0);
    if (r < 0) {
        fprintf(stderr, "fake_watcher: %s\n", strerror(-r));
        return 1;
    }
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
    for (int i = 0; i < item_count; i++) free(items[i]);
    fclose(logfile);
    return 0;
}
