/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* The C twin of Tests/cli/history_app.py for Tests/cli/test_history_app.py:
 * an app in agent mode driven by the same JSON commands on stdin (parsed
 * with handoff_value_decode_json), answering with the same JSON events on
 * stdout. Usage: history_app BUNDLE TEAM TYPE [SECONDS]. */

#include <handoff.h>

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static pthread_t main_thread;
static handoff_application *app;
static handoff_activity *current;
static handoff_value *pending_info; /* set by will_save, when a save is asked */

static void die(const char *what) {
    fprintf(stderr, "history_app: %s: %s\n", what, handoff_last_error_message());
    exit(2);
}

static const handoff_value *field(const handoff_value *command, const char *key) {
    return handoff_value_dictionary_get(command, key);
}

static const char *text(const handoff_value *command, const char *key) {
    const handoff_value *v = field(command, key);
    return handoff_value_get_kind(v) == HANDOFF_VALUE_STRING ? handoff_value_get_string(v, NULL) : NULL;
}

static int flag(const handoff_value *command, const char *key, int fallback) {
    int b = fallback;
    const handoff_value *v = field(command, key);
    if (v != NULL) handoff_value_get_boolean(v, &b);
    return b;
}

/* A JSON array of strings as a string set (at most 16 members). */
static void set_strings(const handoff_value *command, const char *key,
                        int (*setter)(handoff_activity *, const char *const *, size_t)) {
    const char *members[16];
    const handoff_value *v = field(command, key);
    size_t n = handoff_value_count(v), i;
    if (n > 16) n = 16;
    for (i = 0; i < n; i++) members[i] = handoff_value_get_string(handoff_value_array_get(v, i), NULL);
    if (setter(current, members, n) != HANDOFF_OK) die(key);
}

static void will_save(handoff_activity *activity, void *user_data) {
    (void)user_data;
    if (pending_info != NULL) {
        if (handoff_activity_set_user_info(activity, pending_info) != HANDOFF_OK) die("userInfo");
        handoff_value_free(pending_info);
        pending_info = NULL;
    }
    printf("{\"event\":\"saved\"}\n");
    fflush(stdout);
}

/* A deletion's answer: its status, and the message that says why (only
 * during the call). */
static void deleted(void *context, int status) {
    int on_main = pthread_equal(pthread_self(), main_thread);
    const char *message = status == HANDOFF_OK ? NULL : handoff_last_error_message();
    (void)context;
    if (message == NULL) {
        printf("{\"event\":\"deleted\",\"error\":null,\"message\":null,\"main\":%s}\n", on_main ? "true" : "false");
    } else {
        /* Kept JSON-safe: quotes, backslashes and control characters dropped. */
        printf("{\"event\":\"deleted\",\"error\":%d,\"message\":\"", status);
        for (; *message; message++)
            if (*message != '"' && *message != '\\' && (unsigned char)*message >= 0x20) putchar(*message);
        printf("\",\"main\":%s}\n", on_main ? "true" : "false");
    }
    fflush(stdout);
}

/* Runs one command; 0 for quit. */
static int run(const handoff_value *command) {
    const char *do_ = text(command, "do");
    if (do_ == NULL) die("a command without \"do\"");
    if (strcmp(do_, "current") == 0) {
        handoff_activity_delegate d = HANDOFF_ACTIVITY_DELEGATE_INIT;
        const handoff_value *info = field(command, "info");
        if (current != NULL) handoff_activity_free(current);
        current = handoff_activity_new(text(command, "type"));
        if (current == NULL) die("new activity");
        d.user_activity_will_save = will_save;
        handoff_activity_set_delegate(current, &d, NULL, NULL);
        handoff_activity_set_title(current, text(command, "title"));
        handoff_activity_set_persistent_identifier(current, text(command, "persistent_id"));
        if (info != NULL && handoff_activity_set_user_info(current, info) != HANDOFF_OK) die("userInfo");
        set_strings(command, "keywords", handoff_activity_set_keywords);
        set_strings(command, "searchable", handoff_activity_set_searchable_user_info_keys);
        handoff_activity_set_flag(current, HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH, flag(command, "search", 0));
        handoff_activity_set_flag(current, HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF, flag(command, "handoff", 1));
        if (handoff_application_become_current(app, current) != HANDOFF_OK) die("become current");
        printf("{\"event\":\"current\",\"id\":\"%s\"}\n", handoff_activity_get_id(current));
    } else if (strcmp(do_, "save") == 0) {
        pending_info = handoff_value_copy(field(command, "info"));
        handoff_activity_set_flag(current, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
    } else if (strcmp(do_, "delete") == 0) {
        const char *ids[16];
        const handoff_value *v = field(command, "ids");
        size_t n = handoff_value_count(v), i;
        if (n > 16) n = 16;
        for (i = 0; i < n; i++) ids[i] = handoff_value_get_string(handoff_value_array_get(v, i), NULL);
        if (handoff_application_delete_saved_activities(app, ids, n, deleted, NULL) != HANDOFF_OK) die("delete");
    } else if (strcmp(do_, "delete_all") == 0) {
        if (handoff_application_delete_all_saved_activities(app, deleted, NULL) != HANDOFF_OK) die("delete all");
    } else if (strcmp(do_, "quit") == 0) {
        return 0;
    }
    fflush(stdout);
    return 1;
}

int main(int argc, char **argv) {
    handoff_manifest *manifest;
    handoff_account *account;
    handoff_continuity_options options = HANDOFF_CONTINUITY_OPTIONS_INIT;
    handoff_continuity_mode mode;
    char buffer[65536];
    size_t used = 0;
    int going = 1;
    time_t deadline;
    if (argc < 4) {
        fprintf(stderr, "usage: history_app BUNDLE TEAM TYPE [SECONDS]\n");
        return 2;
    }
    deadline = time(NULL) + (argc > 4 ? atoi(argv[4]) : 60);
    main_thread = pthread_self();
    manifest = handoff_manifest_new(argv[1], argv[2]);
    if (manifest == NULL || handoff_manifest_declare_activity_type(manifest, argv[3]) != HANDOFF_OK) die("manifest");
    app = handoff_application_new(manifest, NULL, NULL, NULL);
    if (app == NULL) die("application");
    handoff_manifest_free(manifest);
    account = handoff_account_load(NULL);
    if (account == NULL) die("account");
    options.account = account;
    options.mode = HANDOFF_CONTINUITY_MODE_AGENT;
    if (handoff_application_start_continuity(app, &options) != HANDOFF_OK) die("start continuity");
    handoff_account_free(account);
    handoff_application_get_continuity_mode(app, &mode);
    printf("{\"event\":\"connected\",\"mode\":\"%s\"}\n", mode == HANDOFF_CONTINUITY_MODE_AGENT ? "AGENT" : "OTHER");
    fflush(stdout);

    while (going && time(NULL) < deadline) {
        struct pollfd fds[2] = {{handoff_application_get_fd(app), POLLIN, 0}, {0, POLLIN, 0}};
        if (poll(fds, 2, 500) < 0) break;
        if (fds[0].revents & POLLIN) handoff_application_dispatch(app);
        if (fds[1].revents & (POLLIN | POLLHUP)) {
            ssize_t n = read(0, buffer + used, sizeof buffer - 1 - used);
            char *line, *end;
            if (n <= 0) break;
            used += (size_t)n;
            line = buffer;
            while (going && (end = memchr(line, '\n', used - (size_t)(line - buffer))) != NULL) {
                handoff_value *command = handoff_value_decode_json(line, (size_t)(end - line));
                if (command == NULL) die("a command that is not JSON");
                going = run(command);
                handoff_value_free(command);
                line = end + 1;
            }
            used -= (size_t)(line - buffer);
            memmove(buffer, line, used);
        }
    }
    printf("{\"event\":\"stopped\"}\n");
    fflush(stdout);
    if (current != NULL) handoff_activity_free(current);
    handoff_application_free(app);
    return 0;
}
