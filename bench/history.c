/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* bench_history: the history (docs/history.md) as a person meets it, next
 * to raw baselines taken in the same run.
 *
 *   bench_history TOOL [ENTRIES [LARGE]]
 *
 * Starts a private dbus-daemon and a `handoff agent` (its own account,
 * runtime folder and history database under a temporary folder, and
 * HistoryEntries=LARGE so retention keeps them all), then:
 *
 *   save cost   two apps in HANDOFF_CONTINUITY_MODE_AGENT in this process,
 *               each with a current activity saved once a round (a userInfo
 *               change, then needs_save, then dispatch: the save, the
 *               advertisement and the offer): one eligible for search, so
 *               its dispatch also hands the payload to the history (INDEX);
 *               the other not. Rounds alternate; the difference at p50 is
 *               what the history adds to a save on the app's main thread
 *               (goal <= 0.1 ms). The index is written on the agent's
 *               writer thread, off this path.
 *   fill        ENTRIES (default 10,000) activities eligible for search made
 *               current one after another (titles, keywords and searchable
 *               text from a fixed vocabulary), until the database holds them;
 *               its size per 1,000 entries.
 *   search      GNOME Shell's GetInitialResultSet on org.libhandoff.History
 *               over the session bus (what a person's typing costs), a term
 *               from the vocabulary each round, next to a D-Bus Ping of the
 *               agent's connection (the bus round trip alone); p50 and p99
 *               (goal: search p99 <= 10 ms).
 *   at LARGE    (default 100,000; 0 skips it) the database topped up to
 *               LARGE entries by this process (SQLite, the agent's own
 *               triggers index them; copies of the newest entry's payload
 *               with titles, keywords and text from the vocabulary: filling
 *               90,000 through an app would take the bench's whole budget),
 *               then search and save cost again, next to the figures at
 *               ENTRIES: a search and a save cost the same at either size.
 *               The store's own write at both sizes is bench/history_writes.py's.
 *
 * Never fails on a figure: it reports. Exits 1 when something could not be
 * set up. A watchdog ends the agent and the bus after 20 minutes.
 */
#define _GNU_SOURCE
#include "timing.h"

#include <handoff.h>
#include <sqlite3.h>
#include <systemd/sd-bus.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TYPE "com.example.bench.note"
#define SAVE_ROUNDS 400
#define SEARCH_ROUNDS 1000

static pid_t bus_pid, agent_pid;
static char dir[64];

static void stop_children(void)
{
    if (agent_pid > 0) {
        kill(agent_pid, SIGTERM);
        waitpid(agent_pid, NULL, 0);
        agent_pid = 0;
    }
    if (bus_pid > 0) {
        kill(bus_pid, SIGTERM);
        waitpid(bus_pid, NULL, 0);
        bus_pid = 0;
    }
}

static void watchdog(int sig)
{
    (void)sig;
    if (agent_pid > 0)
        kill(agent_pid, SIGKILL);
    if (bus_pid > 0)
        kill(bus_pid, SIGKILL);
    _exit(3);
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    return remove(path);
}

static int fail(const char *what, const char *why)
{
    fprintf(stderr, "bench_history: %s: %s\n", what, why);
    stop_children();
    if (dir[0])
        nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return 1;
}

/* A fixed vocabulary: words people would search for. */
static const char *const words[] = {
    "budget", "otter", "river", "invoice", "garden", "meeting", "holiday", "recipe", "quarterly", "report",
    "draft", "letter", "zürich", "lisbon", "kyoto", "piano", "chapter", "thesis", "travel", "summit",
    "harbour", "lantern", "meadow", "canyon", "orbit", "pepper", "saffron", "violet", "walnut", "yonder",
    "glacier", "marble", "compass", "velvet", "ember", "falcon", "juniper", "kettle", "lagoon", "nectar",
};
#define WORDS (sizeof words / sizeof words[0])

static unsigned long rng = 26;
static const char *word(void)
{
    rng = rng * 6364136223846793005UL + 1442695040888963407UL;
    return words[(rng >> 33) % WORDS];
}

/* A process with stdout/stderr to `log` (or a pipe in *out when log is NULL). */
static pid_t spawn(char *const argv[], const char *log, int *out)
{
    int p[2] = {-1, -1};
    if (out && pipe(p) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        if (out) {
            dup2(p[1], 1);
            close(p[0]);
        } else {
            int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execvp(argv[0], argv);
        _exit(127);
    }
    if (out) {
        close(p[1]);
        *out = p[0];
    }
    return pid;
}

static int run(char *const argv[])
{
    char log[128];
    snprintf(log, sizeof log, "%s/setup.log", dir);
    pid_t pid = spawn(argv, log, NULL);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static handoff_application *agent_app(const char *bundle, char *why, size_t why_size)
{
    handoff_manifest *m = handoff_manifest_new(bundle, "BENCHTEAM");
    if (!m || handoff_manifest_declare_activity_type(m, TYPE) != HANDOFF_OK) {
        snprintf(why, why_size, "manifest: %s", handoff_last_error_message());
        handoff_manifest_free(m);
        return NULL;
    }
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    handoff_application *app = handoff_application_new(m, &d, NULL, NULL);
    handoff_manifest_free(m);
    handoff_account *account = handoff_account_load(NULL); /* the agent's: $XDG_CONFIG_HOME/handoff */
    handoff_continuity_options o = HANDOFF_CONTINUITY_OPTIONS_INIT;
    o.account = account;
    o.mode = HANDOFF_CONTINUITY_MODE_AGENT;
    if (!app || !account || handoff_application_start_continuity(app, &o) != HANDOFF_OK) {
        snprintf(why, why_size, "app: %s", handoff_last_error_message());
        handoff_account_free(account);
        handoff_application_free(app);
        return NULL;
    }
    handoff_account_free(account);
    return app;
}

/* A new activity with a title, keywords and searchable text from the vocabulary. */
static handoff_activity *note(long n, int searchable)
{
    handoff_activity *a = handoff_activity_new(TYPE);
    char title[160], body[200];
    snprintf(title, sizeof title, "Note %ld: %s %s %s", n, word(), word(), word());
    snprintf(body, sizeof body, "%s %s %s %s %s", word(), word(), word(), word(), word());
    const char *keywords[] = {word(), word()};
    static const char *const key[] = {"body"};
    handoff_activity_set_title(a, title);
    handoff_activity_set_keywords(a, keywords, 2);
    handoff_value *info = handoff_value_new_dictionary();
    handoff_value *text = handoff_value_new_string(body);
    handoff_value_dictionary_set(info, "body", text);
    handoff_value_free(text);
    handoff_activity_set_user_info(a, info);
    handoff_value_free(info);
    handoff_activity_set_searchable_user_info_keys(a, key, 1);
    handoff_activity_set_flag(a, HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH, searchable);
    return a;
}

/* One save: a userInfo change, needs_save, then the dispatch that runs it. */
static int64_t save_round(handoff_application *app, handoff_activity *a, long round)
{
    handoff_value *info = handoff_value_new_dictionary();
    handoff_value *v = handoff_value_new_integer(round);
    handoff_value_dictionary_set(info, "round", v);
    handoff_value_free(v);
    handoff_activity_add_user_info_entries(a, info);
    handoff_value_free(info);
    handoff_activity_set_flag(a, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
    int64_t t0 = now_ns();
    handoff_application_dispatch(app);
    return now_ns() - t0;
}

/* Whether `name` has an owner on the bus. */
static int name_owned(sd_bus *bus, const char *name)
{
    sd_bus_message *reply = NULL;
    int owned = 0;
    if (sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus",
                           "NameHasOwner", NULL, &reply, "s", name) >= 0)
        sd_bus_message_read(reply, "b", &owned);
    sd_bus_message_unref(reply);
    return owned;
}

static long entries_in(const char *db)
{
    sqlite3 *h = NULL;
    long n = -1;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(h, 2000);
        sqlite3_stmt *s = NULL;
        if (sqlite3_prepare_v2(h, "SELECT count(*) FROM entries", -1, &s, NULL) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW)
            n = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    sqlite3_close(h);
    return n;
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : 0;
}

static void print_pair(const char *name, const series *s, const char *base_name, const series *base)
{
    printf("  %-34s p50 %8.3f ms  p99 %8.3f ms   (%s: p50 %.3f, p99 %.3f; difference at p50 %+.3f ms)\n", name,
           median_of(s) / 1e6, p99_of(s) / 1e6, base_name, median_of(base) / 1e6, p99_of(base) / 1e6,
           (median_of(s) - median_of(base)) / 1e6);
}

/* SAVE_ROUNDS saves of each app's activity, alternating: `with` the one
 * eligible for search (its dispatch sends INDEX), `without` the other. */
static void save_cost(handoff_application *kept, handoff_activity *a, handoff_application *plain, handoff_activity *b,
                      series *with, series *without)
{
    series_init(with, SAVE_ROUNDS);
    series_init(without, SAVE_ROUNDS);
    for (long i = 0; i < SAVE_ROUNDS + 20; i++) {
        int64_t t1 = save_round(kept, a, i), t2 = save_round(plain, b, i);
        if (i >= 20) {
            series_add(with, t1);
            series_add(without, t2);
        }
        sleep_ns(200 * 1000);
    }
}

/* SEARCH_ROUNDS searches of what a person has typed so far (the first four
 * letters of a word of the vocabulary), each next to a D-Bus Ping and to
 * the floor of the same query in this process's own SQLite connection:
 * the newest 20 rows that match, no ranking, no columns. */
static void search_cost(sd_bus *bus, const char *db, series *search, series *ping, series *raw, long *results,
                        long *errors)
{
    series_init(search, SEARCH_ROUNDS);
    series_init(ping, SEARCH_ROUNDS);
    series_init(raw, SEARCH_ROUNDS);
    sqlite3 *h = NULL;
    sqlite3_stmt *newest = NULL;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
        sqlite3_busy_timeout(h, 2000);
        sqlite3_prepare_v2(h, "SELECT rowid FROM entries_fts WHERE entries_fts MATCH ?1 ORDER BY rowid DESC LIMIT 20",
                           -1, &newest, NULL);
    }
    for (long i = 0; i < SEARCH_ROUNDS + 20; i++) {
        char term[16];
        snprintf(term, sizeof term, "%.4s", words[i % WORDS]);
        sd_bus_message *reply = NULL;
        sd_bus_error error = SD_BUS_ERROR_NULL;
        int64_t t0 = now_ns();
        int r = sd_bus_call_method(bus, "org.libhandoff.History", "/org/libhandoff/History",
                                   "org.gnome.Shell.SearchProvider2", "GetInitialResultSet", &error, &reply, "as", 1,
                                   term);
        int64_t t1 = now_ns();
        char **ids = NULL;
        if (r >= 0 && sd_bus_message_read_strv(reply, &ids) >= 0 && ids) {
            for (char **p = ids; *p; p++, (*results)++)
                free(*p);
            free(ids);
        } else {
            (*errors)++;
        }
        sd_bus_message_unref(reply);
        sd_bus_error_free(&error);
        int64_t t2 = now_ns();
        sd_bus_call_method(bus, "org.libhandoff.History", "/org/libhandoff/History", "org.freedesktop.DBus.Peer",
                           "Ping", NULL, NULL, "");
        int64_t t3 = now_ns();
        char match[24];
        snprintf(match, sizeof match, "\"%s\"*", term);
        int64_t t4 = now_ns();
        if (newest) {
            sqlite3_reset(newest);
            sqlite3_bind_text(newest, 1, match, -1, SQLITE_TRANSIENT);
            while (sqlite3_step(newest) == SQLITE_ROW) {
            }
        }
        int64_t t5 = now_ns();
        if (i >= 20) {
            series_add(search, t1 - t0);
            series_add(ping, t3 - t2);
            series_add(raw, t5 - t4);
        }
    }
    sqlite3_finalize(newest);
    sqlite3_close(h);
}

static double topped_seconds;

/* Adds `n` entries to the database at `db` through SQLite, as the agent's
 * writer would have (its triggers index them and count them): copies of
 * the newest entry's payload and device, each its own activity, with a
 * title, keywords and searchable text from the vocabulary and a recent
 * last_seen (retention keeps HistoryDays). Transactions of 5,000 rows, the
 * WAL emptied after each, so the agent's writer waits at most one. The
 * number added, or -1. */
static long top_up(const char *db, long n)
{
    int64_t start = now_ns();
    sqlite3 *h = NULL;
    sqlite3_stmt *s = NULL;
    long added = 0;
    if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        goto done;
    sqlite3_busy_timeout(h, 10000);
    if (sqlite3_prepare_v2(h,
                           "INSERT INTO entries(device_id, device_name, activity_id, bundle, team, type, persistent_id, "
                           "title, keywords, content, url, first_seen, last_seen, payload_size, payload) "
                           "SELECT device_id, device_name, randomblob(16), bundle, team, type, NULL, ?1, ?2, ?3, NULL, "
                           "?4, ?4, payload_size, payload FROM entries WHERE id = (SELECT max(id) FROM entries)",
                           -1, &s, NULL) != SQLITE_OK)
        goto done;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int64_t now_ms = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    while (added < n) {
        if (sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
            goto done;
        for (long i = 0; i < 5000 && added < n; i++, added++) {
            char title[160], keywords[64], body[200];
            snprintf(title, sizeof title, "Note %ld: %s %s %s", 1000000 + added, word(), word(), word());
            snprintf(keywords, sizeof keywords, "%s\n%s", word(), word());
            snprintf(body, sizeof body, "%s %s %s %s %s", word(), word(), word(), word(), word());
            sqlite3_reset(s);
            sqlite3_bind_text(s, 1, title, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(s, 2, keywords, -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(s, 3, body, -1, SQLITE_TRANSIENT);
            sqlite3_bind_int64(s, 4, now_ms - n + added);
            if (sqlite3_step(s) != SQLITE_DONE) {
                sqlite3_exec(h, "ROLLBACK", NULL, NULL, NULL);
                added = -1;
                goto done;
            }
        }
        if (sqlite3_exec(h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK ||
            sqlite3_exec(h, "PRAGMA wal_checkpoint(TRUNCATE)", NULL, NULL, NULL) != SQLITE_OK)
            goto done;
    }
done:
    sqlite3_finalize(s);
    sqlite3_close(h);
    topped_seconds = (double)(now_ns() - start) / 1e9;
    return added;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_history TOOL [ENTRIES [LARGE]]\n");
        return 2;
    }
    const char *tool = argv[1];
    long entries = argc > 2 ? atol(argv[2]) : 10000;
    long large = argc > 3 ? atol(argv[3]) : 100000;
    signal(SIGALRM, watchdog);
    signal(SIGINT, watchdog); /* an interrupted run leaves no agent or bus behind */
    signal(SIGTERM, watchdog);
    alarm(1200);
    snprintf(dir, sizeof dir, "/tmp/bench-history-XXXXXX");
    if (!mkdtemp(dir))
        return fail("mkdtemp", strerror(errno));
    char config[96], runtime[96], socket_path[128], db[128], agent_log[128], port[16];
    snprintf(config, sizeof config, "%s/config", dir);
    snprintf(runtime, sizeof runtime, "%s/run", dir);
    snprintf(socket_path, sizeof socket_path, "%s/agent.sock", runtime);
    snprintf(db, sizeof db, "%s/history.sqlite", dir);
    snprintf(agent_log, sizeof agent_log, "%s/agent.log", dir);
    snprintf(port, sizeof port, "%d", 40000 + getpid() % 20000);
    mkdir(runtime, 0700);
    setenv("XDG_CONFIG_HOME", config, 1);
    setenv("XDG_RUNTIME_DIR", runtime, 1);
    setenv("HANDOFF_AGENT_SOCKET", socket_path, 1);
    setenv("HANDOFF_HISTORY_DB", db, 1);
    setenv("LC_ALL", "C", 1);

    char *create[] = {(char *)tool, "account", "create", NULL};
    char *name[] = {(char *)tool, "device", "--name", "Bench desk", NULL};
    char kept_entries[24];
    snprintf(kept_entries, sizeof kept_entries, "%ld", large > entries ? large : entries);
    char *keep[] = {(char *)tool, "settings", "history", "entries", kept_entries, NULL};
    if (run(create) != 0 || run(name) != 0 || run(keep) != 0)
        return fail("setup", "handoff account create / device / settings history entries failed");

    int address_fd = -1;
    char *daemon[] = {"dbus-daemon", "--session", "--nofork", "--print-address=1", NULL};
    bus_pid = spawn(daemon, NULL, &address_fd);
    char address[256] = {0};
    ssize_t got = bus_pid > 0 ? read(address_fd, address, sizeof address - 1) : -1;
    if (got <= 0)
        return fail("dbus-daemon", "no address");
    address[strcspn(address, "\n")] = 0;
    setenv("DBUS_SESSION_BUS_ADDRESS", address, 1);

    char *agent[] = {(char *)tool, "--json", "agent", "--socket", socket_path, "--no-notifications", "--no-tray",
                     "--no-multicast", "--peer", "127.0.0.1:9", "--beacon-port", port, "--channel", "127.0.0.1:0", NULL};
    agent_pid = spawn(agent, agent_log, NULL);
    sd_bus *bus = NULL;
    if (sd_bus_open_user(&bus) < 0)
        return fail("sd-bus", "cannot connect to the private bus");
    /* Ready: the socket answers an app, and the history's name is owned. */
    int64_t end = now_ns() + 30LL * 1000000000;
    while (now_ns() < end && (access(socket_path, F_OK) != 0 || !name_owned(bus, "org.libhandoff.History")))
        sleep_ns(20 * 1000000);
    if (!name_owned(bus, "org.libhandoff.History"))
        return fail("agent", "did not listen and own org.libhandoff.History within 30 s (see its log)");

    char why[256];
    handoff_application *kept = agent_app("com.example.bench.kept", why, sizeof why);
    handoff_application *plain = kept ? agent_app("com.example.bench.plain", why, sizeof why) : NULL;
    if (!plain)
        return fail("apps", why);

    /* Save cost. */
    handoff_activity *a = note(0, 1), *b = note(0, 0);
    handoff_application_become_current(kept, a);
    handoff_application_become_current(plain, b);
    handoff_application_dispatch(kept);
    handoff_application_dispatch(plain);
    series with, without;
    save_cost(kept, a, plain, b, &with, &without);

    /* Fill. */
    int64_t fill_start = now_ns();
    for (long i = 1; i <= entries; i++) {
        handoff_activity *n = note(i, 1);
        handoff_application_become_current(kept, n);
        handoff_application_dispatch(kept);
        handoff_activity_free(n);
        /* Paced by the writer, whose queue holds 256 waiting records (beyond
         * that the oldest waiting is dropped): no person makes 10,000
         * activities current in seconds. */
        if (i % 25 == 0) {
            int64_t wait_end = now_ns() + 5LL * 1000000000;
            while (entries_in(db) < i && now_ns() < wait_end)
                sleep_ns(5 * 1000000);
        }
    }
    long stored = -1;
    end = now_ns() + 30LL * 1000000000;
    while (now_ns() < end && (stored = entries_in(db)) < entries + 1) /* + the save rounds' one */
        sleep_ns(100 * 1000000);
    double fill_s = (double)(now_ns() - fill_start) / 1e9;

    /* Search. */
    series search, ping, raw;
    long results = 0, errors = 0;
    search_cost(bus, db, &search, &ping, &raw, &results, &errors);

    long size = file_size(db);
    char wal[160];
    snprintf(wal, sizeof wal, "%s-wal", db);
    printf("\nhistory (docs/history.md): one agent, a private session bus, %ld entries\n", stored);
    print_pair("save, eligible for search (INDEX)", &with, "same save, not eligible", &without);
    printf("  %-34s goal: the difference <= 0.1 ms at p50\n", "");
    printf("  %-34s %ld entries kept in %.1f s; database %.0f KiB (+ WAL %.0f KiB): %.0f KiB per 1,000 entries\n",
           "fill", stored, fill_s, size / 1024.0, file_size(wal) / 1024.0,
           stored > 0 ? size / 1024.0 / ((double)stored / 1000) : 0);
    print_pair("search (GetInitialResultSet)", &search, "D-Bus Ping of the agent", &ping);
    print_pair("  raw FTS5: newest 20 matches", &raw, "D-Bus Ping of the agent", &ping);
    printf("  %-34s goal: p99 <= 10 ms; %.1f results a query (at most 50), %ld failed calls\n", "",
           (double)results / (SEARCH_ROUNDS + 20), errors);

    if (large > stored && stored > 0) {
        /* The same at LARGE entries. */
        long topped = top_up(db, large - stored);
        if (topped < 0)
            printf("  %-34s could not top up the database to %ld entries\n", "", large);
        long at_large = entries_in(db);
        series search_large, ping_large, raw_large, with_large, without_large;
        long results_large = 0, errors_large = 0;
        search_cost(bus, db, &search_large, &ping_large, &raw_large, &results_large, &errors_large);
        /* The fill made other activities current: the saved ones again. */
        handoff_application_become_current(kept, a);
        handoff_application_dispatch(kept);
        save_cost(kept, a, plain, b, &with_large, &without_large);
        printf("\nhistory at %ld entries (topped up from %ld by SQLite in %.1f s), next to the figures at %ld\n",
               at_large, stored, topped_seconds, stored);
        print_pair("search (GetInitialResultSet)", &search_large, "the same search at the smaller size", &search);
        printf("  %-34s goal: p99 <= 10 ms; p50 %.2fx and p99 %.2fx the smaller size's; %.1f results a query, %ld failed calls\n",
               "", median_of(&search_large) / median_of(&search), p99_of(&search_large) / p99_of(&search),
               (double)results_large / (SEARCH_ROUNDS + 20), errors_large);
        print_pair("  D-Bus Ping of the agent", &ping_large, "at the smaller size", &ping);
        print_pair("  raw FTS5: newest 20 matches", &raw_large, "at the smaller size", &raw);
        print_pair("save, eligible for search (INDEX)", &with_large, "same save, not eligible", &without_large);
        printf("  %-34s goal: the difference <= 0.1 ms at p50 (%+.3f ms at the smaller size)\n", "",
               (median_of(&with) - median_of(&without)) / 1e6);
    }

    handoff_activity_free(a);
    handoff_activity_free(b);
    handoff_application_free(kept);
    handoff_application_free(plain);
    sd_bus_flush_close_unref(bus);
    stop_children();
    nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    return stored >= entries ? 0 : 1;
}
