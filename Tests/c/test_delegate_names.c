/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* test_delegate_names.c - the delegate structs' fields carry Apple's names,
 * and 0.1.0's names still work as deprecated aliases of the same storage
 * (include/handoff.h, HANDOFF_RENAMED_FIELD_): the layout is what 0.1.0
 * had, an old name reads and writes its new field, and a callback set
 * through an old name runs inside dispatch.
 *
 * Compiled with -DSHOW_DEPRECATED, this file is what
 * Tests/c/check_deprecated_names.sh compiles to see that each old name
 * warns and names its new field. */
#include "check_handoff.h"

#include <stddef.h>

/* The old names are deprecated: this file uses them on purpose. */
#if !defined(SHOW_DEPRECATED) && (defined(__GNUC__) || defined(__clang__))
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif

#define PTR sizeof(void (*)(void))
#define AT(index) (sizeof(size_t) + (index) * PTR)

/* 0.1.0's layout: `size`, then one function pointer per callback. */
static void test_layout_is_unchanged(void) {
    CHECK_EQ_INT(sizeof(handoff_activity_delegate), AT(4));
    CHECK_EQ_INT(offsetof(handoff_activity_delegate, user_activity_will_save), AT(0));
    CHECK_EQ_INT(offsetof(handoff_activity_delegate, user_activity_was_continued), AT(1));
    CHECK_EQ_INT(offsetof(handoff_activity_delegate, user_activity_did_receive_stream), AT(2));
    CHECK_EQ_INT(offsetof(handoff_activity_delegate, user_activity_did_fail_to_hand_off), AT(3));
    CHECK_EQ_INT(offsetof(handoff_activity_delegate, will_save), AT(0));
    CHECK_EQ_INT(offsetof(handoff_activity_delegate, was_continued), AT(1));
    CHECK_EQ_INT(offsetof(handoff_activity_delegate, did_receive_stream), AT(2));
    CHECK_EQ_INT(offsetof(handoff_activity_delegate, did_fail_to_hand_off), AT(3));

    CHECK_EQ_INT(sizeof(handoff_application_delegate), AT(8));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, will_continue_user_activity), AT(0));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, continue_user_activity), AT(1));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, did_fail_to_continue_user_activity), AT(2));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, did_update_user_activity), AT(3));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, will_continue), AT(0));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, continue_activity), AT(1));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, did_fail_to_continue), AT(2));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, did_update), AT(3));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, activity_available), AT(4));
    CHECK_EQ_INT(offsetof(handoff_application_delegate, open_webpage), AT(7));

    CHECK_EQ_INT(sizeof(handoff_responder_callbacks), AT(2));
}

static void on_will_save(handoff_activity *activity, void *user_data) {
    (void)activity;
    ++*(int *)user_data;
}

static void on_did_update(handoff_application *app, handoff_activity *activity, void *user_data) {
    (void)app;
    (void)activity;
    *(int *)user_data += 100;
}

static int on_will_continue(handoff_application *app, const char *type, void *user_data) {
    (void)app;
    (void)type;
    (void)user_data;
    return 1;
}

static int on_continue(handoff_application *app, handoff_activity *activity,
                       handoff_restoration_handler *handler, void *user_data) {
    (void)app;
    (void)activity;
    (void)user_data;
    handoff_restoration_handler_free(handler);
    return 0;
}

static void on_did_fail(handoff_application *app, const char *type, int error,
                        const char *message, void *user_data) {
    (void)app;
    (void)type;
    (void)error;
    (void)message;
    (void)user_data;
}

static void on_activity(handoff_activity *activity, void *user_data) {
    (void)activity;
    (void)user_data;
}

static void on_stream(handoff_activity *activity, int fd, void *user_data) {
    (void)activity;
    (void)fd;
    (void)user_data;
}

static void on_hand_off_failed(handoff_activity *activity, int error, const char *message,
                               void *user_data) {
    (void)activity;
    (void)error;
    (void)message;
    (void)user_data;
}

/* The _INIT macros leave every field NULL, whatever its name; each old name
 * writes the field its new name reads, and the other way round. */
static void test_old_names_alias_the_new_fields(void) {
    handoff_activity_delegate a = HANDOFF_ACTIVITY_DELEGATE_INIT;
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    CHECK_EQ_INT(a.size, sizeof a);
    CHECK(a.user_activity_will_save == NULL && a.user_activity_was_continued == NULL &&
          a.user_activity_did_receive_stream == NULL &&
          a.user_activity_did_fail_to_hand_off == NULL);
    CHECK_EQ_INT(d.size, sizeof d);
    CHECK(d.will_continue_user_activity == NULL && d.continue_user_activity == NULL &&
          d.did_fail_to_continue_user_activity == NULL && d.did_update_user_activity == NULL &&
          d.activity_available == NULL && d.activity_updated == NULL &&
          d.activity_withdrawn == NULL && d.open_webpage == NULL);

    a.will_save = on_will_save;
    a.was_continued = on_activity;
    a.did_receive_stream = on_stream;
    a.did_fail_to_hand_off = on_hand_off_failed;
    CHECK(a.user_activity_will_save == on_will_save);
    CHECK(a.user_activity_was_continued == on_activity);
    CHECK(a.user_activity_did_receive_stream == on_stream);
    CHECK(a.user_activity_did_fail_to_hand_off == on_hand_off_failed);

    d.will_continue = on_will_continue;
    d.continue_activity = on_continue;
    d.did_fail_to_continue = on_did_fail;
    d.did_update = on_did_update;
    CHECK(d.will_continue_user_activity == on_will_continue);
    CHECK(d.continue_user_activity == on_continue);
    CHECK(d.did_fail_to_continue_user_activity == on_did_fail);
    CHECK(d.did_update_user_activity == on_did_update);
    CHECK(d.activity_available == NULL); /* the neighbours are untouched */

    a.user_activity_will_save = NULL;
    CHECK(a.will_save == NULL);
    d.did_update_user_activity = NULL;
    CHECK(d.did_update == NULL);
}

/* Callbacks set through the old names run: a save of an activity the app
 * holds calls the activity's will_save and the application's did_update. */
static void test_callbacks_set_through_old_names_run(void) {
    int calls = 0;
    handoff_manifest *m = handoff_manifest_new("com.example.names", "TEAM1234");
    handoff_application_delegate d = HANDOFF_APPLICATION_DELEGATE_INIT;
    handoff_activity_delegate ad = HANDOFF_ACTIVITY_DELEGATE_INIT;
    handoff_responder_callbacks rc = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_application *app;
    handoff_activity *activity;
    handoff_responder *responder;
    d.did_update = on_did_update;
    ad.will_save = on_will_save;
    app = handoff_application_new(m, &d, &calls, NULL);
    activity = handoff_activity_new("com.example.names.edit");
    responder = app ? handoff_responder_new(app, &rc, NULL, NULL) : NULL;
    if (!CHECK(m && app && activity && responder)) goto out;
    CHECK_OK(handoff_activity_set_delegate(activity, &ad, &calls, NULL));
    CHECK_OK(handoff_responder_set_user_activity(responder, activity));
    CHECK_OK(handoff_activity_set_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1));
    CHECK_EQ_INT(calls, 0); /* only inside dispatch */
    CHECK_OK(handoff_application_dispatch(app));
    CHECK_EQ_INT(calls, 101); /* will_save once, did_update once */
out:
    handoff_responder_free(responder);
    handoff_activity_free(activity);
    handoff_application_free(app);
    handoff_manifest_free(m);
}

int main(int argc, char **argv) {
    check_init(argc, argv);
    CHECK_RUN(test_layout_is_unchanged);
    CHECK_RUN(test_old_names_alias_the_new_fields);
    CHECK_RUN(test_callbacks_set_through_old_names_run);
    return check_finish();
}
