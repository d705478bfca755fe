/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/* A GLib program against the installed headers: built with
 * `pkg-config --cflags --libs handoff glib-2.0` and nothing else. One
 * iteration of the default main context dispatches, through the installed
 * handoff-glib.h's GSource, the save queued on an activity the app holds. */
#include <handoff-glib.h>
#include <stdio.h>

static void on_will_save(handoff_activity *activity, void *user_data) {
    (void)activity;
    ++*(int *)user_data;
}

int main(void) {
    int saves = 0;
    handoff_manifest *manifest = handoff_manifest_new("com.example.installed", "TEAM1");
    handoff_application *app = handoff_application_new(manifest, NULL, NULL, NULL);
    handoff_responder_callbacks callbacks = HANDOFF_RESPONDER_CALLBACKS_INIT;
    handoff_responder *responder = handoff_responder_new(app, &callbacks, NULL, NULL);
    handoff_activity *activity = handoff_activity_new("com.example.installed.edit");
    handoff_activity_delegate delegate = HANDOFF_ACTIVITY_DELEGATE_INIT;
    guint source;
    delegate.user_activity_will_save = on_will_save;
    handoff_activity_set_delegate(activity, &delegate, &saves, NULL);
    handoff_responder_set_user_activity(responder, activity);
    source = handoff_glib_add(app);
    handoff_activity_set_flag(activity, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
    g_main_context_iteration(NULL, TRUE); /* the fd is readable: it dispatches */
    g_source_remove(source);
    handoff_activity_free(activity);
    handoff_responder_free(responder);
    handoff_application_free(app);
    handoff_manifest_free(manifest);
    printf("saves %d\n", saves);
    return saves == 1 ? 0 : 1;
}
