/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * test_documents.c - the document helper and security-scoped access through
 * include/handoff.h only (docs/documents.md section 6): a document's
 * activity follows its file as editors rename, replace and delete it, on
 * the main thread, inside handoff_application_dispatch, woken by the
 * application fd (its wake-ups are counted and bounded: nothing polls).
 *
 * Each test runs in its own process (see check.h); CHECK_NOFORK=1 runs them
 * all in one, e.g. under valgrind.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

/* mkdtemp */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"

#include "check.h"
#include "check_handoff.h"

#define TYPE "com.example.editor.document"

static char folder[64];

static void make_folder(void) {
    strcpy(folder, "/tmp/handoff-c-document-XXXXXX");
    CHECK(mkdtemp(folder) != NULL);
}

/* Removes the folder and what the test left in it. */
static void remove_folder(void) {
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", folder);
    CHECK(system(command) == 0);
}

static const char *in_folder(const char *name) {
    static char paths[4][256];
    static int next;
    char *p = paths[next++ % 4];
    snprintf(p, 256, "%s/%s", folder, name);
    return p;
}

static void write_file(const char *name, const char *text) {
    int fd = open(in_folder(name), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CHECK(fd >= 0);
    CHECK(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

static void rename_file(const char *from, const char *to) {
    char source[256];
    snprintf(source, sizeof source, "%s", in_folder(from));
    CHECK(rename(source, in_folder(to)) == 0);
}

static handoff_application *make_app(void) {
    handoff_manifest *m = handoff_manifest_new("com.example.editor", "TEAM1234");
    handoff_application *app;
    CHECK(m != NULL);
    CHECK(handoff_manifest_declare_activity_type(m, TYPE) == HANDOFF_OK);
    app = handoff_application_new(m, NULL, NULL, NULL);
    CHECK(app != NULL);
    handoff_manifest_free(m);
    return app;
}

/* The URL under HANDOFF_DOCUMENT_URL_KEY, copied into `out`. */
static void document_url(handoff_document *doc, char *out, size_t size) {
    handoff_value *info = handoff_activity_copy_user_info(handoff_document_activity(doc));
    const handoff_value *url = handoff_value_dictionary_get(info, HANDOFF_DOCUMENT_URL_KEY);
    snprintf(out, size, "%s", url ? handoff_value_get_url(url) : "(none)");
    handoff_value_free(info);
}

static int readable(int fd, int timeout_ms) {
    struct pollfd p = {fd, POLLIN, 0};
    return poll(&p, 1, timeout_ms) == 1;
}

/* Dispatches at each wake-up of the application fd (each wait at most 5 s,
 * at most 10 wake-ups) until the document's title is `title`; returns the
 * wake-ups counted. */
static int dispatch_until_title(handoff_application *app, handoff_document *doc, const char *title) {
    int wake_ups = 0;
    const char *now;
    while (((now = handoff_activity_get_title(handoff_document_activity(doc))) == NULL ||
            strcmp(now, title) != 0) && wake_ups < 10) {
        if (!readable(handoff_application_get_fd(app), 5000)) break;
        wake_ups++;
        CHECK_OK(handoff_application_dispatch(app));
    }
    return wake_ups;
}

static void test_keys(void) {
    CHECK_EQ_STR(HANDOFF_DOCUMENT_URL_KEY, "NSUserActivityDocumentURLKey");
    CHECK_EQ_STR(HANDOFF_DOCUMENT_ORIGINS_KEY, "HandoffDocumentOrigins");
}

static void test_new_is_current_with_url_and_title(void) {
    handoff_application *app = make_app();
    handoff_document *doc;
    handoff_activity *current;
    char url[512], expected[512];
    make_folder();
    write_file("My plan.odt", "v1");
    doc = handoff_document_new(app, TYPE, in_folder("My plan.odt"));
    CHECK(doc != NULL);
    CHECK_EQ_STR(handoff_activity_get_type(handoff_document_activity(doc)), TYPE);
    CHECK_EQ_STR(handoff_activity_get_title(handoff_document_activity(doc)), "My plan.odt");
    document_url(doc, url, sizeof url);
    snprintf(expected, sizeof expected, "file://%s/My%%20plan.odt", folder);
    CHECK_EQ_STR(url, expected);
    current = handoff_application_copy_current_activity(app);
    CHECK(current == handoff_document_activity(doc));
    handoff_activity_free(current);
    CHECK(!readable(handoff_application_get_fd(app), 0));
    handoff_document_free(doc);
    handoff_application_free(app);
    remove_folder();
}

static void test_follows_rename_replacement_and_deletion(void) {
    handoff_application *app = make_app();
    handoff_document *doc;
    handoff_activity *current;
    char url[512], expected[512];
    int wake_ups = 0;
    make_folder();
    write_file("a.txt", "v1");
    doc = handoff_document_new(app, TYPE, in_folder("a.txt"));
    CHECK(doc != NULL);

    /* A rename: nothing changes until dispatch. */
    rename_file("a.txt", "b.txt");
    CHECK(readable(handoff_application_get_fd(app), 5000));
    CHECK_EQ_STR(handoff_activity_get_title(handoff_document_activity(doc)), "a.txt");
    wake_ups += dispatch_until_title(app, doc, "b.txt");
    CHECK_EQ_STR(handoff_activity_get_title(handoff_document_activity(doc)), "b.txt");
    document_url(doc, url, sizeof url);
    snprintf(expected, sizeof expected, "file://%s/b.txt", folder);
    CHECK_EQ_STR(url, expected);

    /* A save by replacement, then the new file renamed: it is followed. */
    write_file(".b.txt.tmp", "v2");
    rename_file(".b.txt.tmp", "b.txt");
    CHECK(readable(handoff_application_get_fd(app), 5000));
    wake_ups++;
    CHECK_OK(handoff_application_dispatch(app));
    rename_file("b.txt", "c.txt");
    wake_ups += dispatch_until_title(app, doc, "c.txt");
    CHECK_EQ_STR(handoff_activity_get_title(handoff_document_activity(doc)), "c.txt");
    CHECK(wake_ups <= 4);
    CHECK_OK(handoff_application_dispatch(app));
    CHECK(!readable(handoff_application_get_fd(app), 0));

    /* Deleted: no longer current; back and saved: current again. */
    CHECK(unlink(in_folder("c.txt")) == 0);
    CHECK(readable(handoff_application_get_fd(app), 5000));
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_NULL_ERR(handoff_application_copy_current_activity(app), HANDOFF_E_NOT_FOUND);
    write_file("c.txt", "v3");
    CHECK_OK(handoff_document_saved(doc));
    current = handoff_application_copy_current_activity(app);
    CHECK(current == handoff_document_activity(doc));
    handoff_activity_free(current);

    handoff_document_free(doc);
    handoff_application_free(app);
    remove_folder();
}

static void test_edited_saved_and_free(void) {
    handoff_application *app = make_app();
    handoff_document *doc;
    handoff_activity *kept;
    int flag = -1;
    make_folder();
    write_file("e.txt", "v1");
    doc = handoff_document_new(app, TYPE, in_folder("e.txt"));
    CHECK(doc != NULL);
    CHECK_OK(handoff_document_edited(doc));
    CHECK_OK(handoff_activity_get_flag(handoff_document_activity(doc), HANDOFF_ACTIVITY_NEEDS_SAVE, &flag));
    CHECK_EQ_INT(flag, 1);
    CHECK_OK(handoff_document_saved(doc));
    CHECK_OK(handoff_activity_get_flag(handoff_document_activity(doc), HANDOFF_ACTIVITY_NEEDS_SAVE, &flag));
    CHECK_EQ_INT(flag, 0);
    kept = handoff_activity_ref(handoff_document_activity(doc));
    handoff_document_free(doc);
    CHECK_EQ_INT(handoff_activity_is_invalidated(kept), 1);
    CHECK_NULL_ERR(handoff_application_copy_current_activity(app), HANDOFF_E_NOT_FOUND);
    handoff_activity_free(kept);
    handoff_document_free(NULL);
    handoff_application_free(app);
    remove_folder();
}

static void test_document_errors(void) {
    handoff_application *app = make_app();
    make_folder();
    CHECK_NULL_ERR(handoff_document_new(NULL, TYPE, "/etc/hostname"), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_document_new(app, NULL, "/etc/hostname"), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_document_new(app, TYPE, NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_NULL_ERR(handoff_document_new(app, "", in_folder("x")), HANDOFF_E_INVALID_VALUE);
    CHECK_NULL_ERR(handoff_document_new(app, TYPE, in_folder("absent")), HANDOFF_E_NOT_FOUND);
    CHECK_NULL_ERR(handoff_document_new(app, TYPE, folder), HANDOFF_E_INVALID_VALUE);
    CHECK_STATUS(handoff_document_edited(NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_document_saved(NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK(handoff_document_activity(NULL) == NULL);
    handoff_application_free(app);
    remove_folder();
}

static void test_url_accessing(void) {
    handoff_application *app = make_app();
    char *path = NULL;
    char *untouched = (char *)"untouched";
    if (access("/.flatpak-info", F_OK) == 0) {
        CHECK_STATUS(handoff_url_start_accessing(app, "file:///home/ada/plan.odt", &path),
                     HANDOFF_E_INVALID_STATE);
    } else {
        CHECK_OK(handoff_url_start_accessing(app, "file:///home/ada/My%20plan.odt", &path));
        CHECK_EQ_STR(path, "/home/ada/My plan.odt");
        handoff_free(path);
        CHECK_OK(handoff_url_stop_accessing(app, "file:///home/ada/My%20plan.odt"));
    }
    path = untouched;
    CHECK_STATUS(handoff_url_start_accessing(app, "https://example.com/plan.odt", &path),
                 HANDOFF_E_INVALID_ARGUMENT);
    CHECK(path == untouched);
    CHECK_STATUS(handoff_url_start_accessing(app, "file://elsewhere/plan.odt", &path),
                 HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_url_start_accessing(NULL, "file:///a", &path), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_url_start_accessing(app, NULL, &path), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_url_start_accessing(app, "file:///a", NULL), HANDOFF_E_INVALID_ARGUMENT);
    CHECK_STATUS(handoff_url_stop_accessing(app, "https://example.com/"), HANDOFF_E_INVALID_ARGUMENT);
    handoff_application_free(app);
}

int main(int argc, char **argv) {
    check_init(argc, argv);
    CHECK_RUN(test_keys);
    CHECK_RUN(test_new_is_current_with_url_and_title);
    CHECK_RUN(test_follows_rename_replacement_and_deletion);
    CHECK_RUN(test_edited_saved_and_free);
    CHECK_RUN(test_document_errors);
    CHECK_RUN(test_url_accessing);
    return check_finish();
}
