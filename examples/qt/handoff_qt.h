/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// handoff_qt.h - libhandoff on Qt's event loop, in one function: copy it
// into your application. Qt 6 or Qt 5, QtCore only, no moc.
//
// handoff_application_get_fd is all the loop needs: it is readable exactly
// while callbacks are queued or one of the library's timers is due, so a
// QSocketNotifier on it is enough, and no QTimer is needed for timeouts
// (handoff_application_next_timeout never has to be polled).
#ifndef HANDOFF_QT_H
#define HANDOFF_QT_H

#include <QtCore/QObject>
#include <QtCore/QSocketNotifier>
#include <QtCore/QtGlobal>

#include <handoff.h>

// Dispatches `app` whenever it has work, from the event loop of the thread
// that calls this, which must be the application's main thread (the one
// that created it: callbacks run only there). The notifier belongs to
// `parent`; delete it (or its parent) before handoff_application_free.
// Should dispatch fail (a notifier moved to another thread gets
// HANDOFF_E_WRONG_THREAD), it says why and disables itself rather than
// spin on a readable fd.
inline QSocketNotifier *handoffAttachToQt(handoff_application *app, QObject *parent = nullptr) {
    auto *notifier =
        new QSocketNotifier(handoff_application_get_fd(app), QSocketNotifier::Read, parent);
    QObject::connect(notifier, &QSocketNotifier::activated, notifier, [app, notifier] {
        int status = handoff_application_dispatch(app);
        if (status != HANDOFF_OK) {
            qCritical("handoff: dispatch failed (%s: %s); disabling the notifier",
                      handoff_status_string(status), handoff_last_error_message());
            notifier->setEnabled(false);
        }
    });
    return notifier;
}

#endif // HANDOFF_QT_H
