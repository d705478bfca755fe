/* SPDX-License-Identifier: MIT OR Apache-2.0 */
/*
 * handoff-glib.h - libhandoff on a GLib main loop: a GSource that runs
 * handoff_application_dispatch whenever the application has work.
 *
 * Header-only (every function is static inline), installed next to
 * handoff.h; nothing to link beyond libhandoff and GLib:
 *
 *     cc app.c $(pkg-config --cflags --libs handoff glib-2.0)
 *
 *     handoff_application *app = handoff_application_new(...);
 *     guint id = handoff_glib_add(app);     // on the app's main thread
 *     g_main_loop_run(loop);                // callbacks run in here
 *     g_source_remove(id);                  // before handoff_application_free
 *
 * What the source watches. handoff_application_get_fd alone, for G_IO_IN,
 * and no timeout: the fd is readable exactly while callbacks are queued or
 * one of the library's timers is due (the timers are a timerfd inside it),
 * so the fd is enough and handoff_application_next_timeout is not needed.
 * The source wakes the loop only when there is work, and dispatching makes
 * the fd unreadable again until there is more.
 *
 * Threads. Callbacks run only on the application's main thread, the one
 * that created it, so the source belongs to the GMainContext that thread
 * iterates. handoff_glib_add attaches to the global default context, as
 * g_unix_fd_add does: right for an application created on the thread that
 * runs the default main loop. For another context, use
 * handoff_glib_source_new and g_source_attach. A source dispatched on
 * another thread gets HANDOFF_E_WRONG_THREAD (nothing runs): it reports
 * that with g_critical (log domain "handoff") and removes itself, rather
 * than spin on a readable fd it may not dispatch.
 *
 * Lifetime. The source points at the application without owning it (an
 * application has no reference count): remove the source (g_source_remove,
 * or g_source_destroy) before handoff_application_free.
 *
 * Callback. g_source_set_callback is optional: the function runs after
 * each dispatch, with its data; G_SOURCE_REMOVE from it removes the source.
 *
 * Nested loops. The source does not recurse (no G_SOURCE_CAN_RECURSE): a
 * main loop run inside a libhandoff callback (a modal dialog) does not
 * dispatch the application; what is queued meanwhile runs after the
 * callback returns, as handoff_application_dispatch requires.
 */
#ifndef HANDOFF_GLIB_H
#define HANDOFF_GLIB_H

#include <glib.h>
#include "handoff.h"

G_BEGIN_DECLS

/* The source: a GSource followed by the application it dispatches. */
typedef struct handoff_glib_source_ {
    GSource source;
    handoff_application *app;
} handoff_glib_source_;

static inline gboolean handoff_glib_dispatch_(GSource *source, GSourceFunc callback,
                                              gpointer user_data) {
    int status = handoff_application_dispatch(((handoff_glib_source_ *)source)->app);
    if (status != HANDOFF_OK) {
        g_log("handoff", G_LOG_LEVEL_CRITICAL,
              "handoff-glib: dispatch failed (%s: %s); removing the source: attach it to the "
              "context of the thread that created the application",
              handoff_status_string(status), handoff_last_error_message());
        return G_SOURCE_REMOVE;
    }
    return callback != NULL ? callback(user_data) : G_SOURCE_CONTINUE;
}

/* A new source that dispatches `app` when it has work, not yet attached:
 * the caller owns the reference (g_source_attach, then g_source_unref).
 * Its name is "handoff", its priority G_PRIORITY_DEFAULT. NULL (with a
 * g_return_val_if_fail warning) for a NULL application. */
static inline GSource *handoff_glib_source_new(handoff_application *app) {
    /* prepare and check NULL: GLib then dispatches the source exactly when
     * its fd polled readable, and never times it out. */
    static GSourceFuncs funcs = {NULL, NULL, handoff_glib_dispatch_, NULL, NULL, NULL};
    GSource *source;
    g_return_val_if_fail(app != NULL, NULL);
    source = g_source_new(&funcs, sizeof(handoff_glib_source_));
    ((handoff_glib_source_ *)source)->app = app;
    g_source_set_name(source, "handoff");
    g_source_add_unix_fd(source, handoff_application_get_fd(app), G_IO_IN);
    return source;
}

/* Attaches a new source for `app` to the global default main context and
 * returns its id, for g_source_remove (0 for a NULL application). Call it
 * on the application's main thread, which must be the thread that runs the
 * default context's loop. */
static inline guint handoff_glib_add(handoff_application *app) {
    GSource *source = handoff_glib_source_new(app);
    guint id;
    if (source == NULL) return 0;
    id = g_source_attach(source, NULL);
    g_source_unref(source);
    return id;
}

G_END_DECLS

#endif /* HANDOFF_GLIB_H */
