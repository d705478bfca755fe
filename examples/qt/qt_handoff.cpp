/* SPDX-License-Identifier: MIT OR Apache-2.0 */
// qt_handoff: a handoff between two applications, driven by Qt's event
// loop through handoff_qt.h (a QSocketNotifier on each application's fd).
//
// Two devices in one process, joined on loopback: the sender offers a note
// being edited, the receiver sees it offered, continues it, and restores
// its title and text; the sender then hears it was continued. Nothing but
// the two notifiers wakes the loop; a QTimer only bounds the wait. Exits 0
// when the handoff completed, 1 otherwise. `make test-qt` builds and runs
// it:
//
//   c++ -std=c++17 -fPIC qt_handoff.cpp $(pkg-config --cflags --libs handoff Qt6Core)
//
// Both sides use a fixed demo key so no set-up is needed; a real app loads
// the person's account with handoff_account_load(nullptr) and passes no
// device_id (it is then the person's device).
#include "handoff_qt.h"

#include <QtCore/QCoreApplication>
#include <QtCore/QTimer>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

const char *const kType = "com.example.qtnotes.edit";

// DEMO ONLY: a fixed key, so the two sides share an "account".
const unsigned char kDemoKey[32] = {'q', 't', '-', 'h', 'a', 'n', 'd', 'o', 'f', 'f', '-',
                                    'd', 'e', 'm', 'o', '-', 'k', 'e', 'y', 1,   2,   3,
                                    4,   5,   6,   7,   8,   9,   10,  11,  12,  13};

struct Side {
    explicit Side(const char *n) : name(n) {}
    const char *name;
    handoff_application *app = nullptr;
    handoff_responder *editor = nullptr;
    std::string restored; // the receiver's editor: what it restored
    bool done = false;
};

void say(const Side &side, const std::string &what) {
    std::printf("%s: %s\n", side.name, what.c_str());
    std::fflush(stdout);
}

// A free loopback UDP port for a beacon socket.
int freeUdpPort() {
    sockaddr_in a{};
    socklen_t length = sizeof a;
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int port = -1;
    if (fd >= 0 && bind(fd, reinterpret_cast<sockaddr *>(&a), sizeof a) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr *>(&a), &length) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0) close(fd);
    return port;
}

// ---- the receiver's delegate and editor

void onAvailable(handoff_application *app, const handoff_remote_activity *remote, void *data) {
    auto *side = static_cast<Side *>(data);
    say(*side, std::string("offered \"") + handoff_remote_activity_get_title(remote) + "\" by " +
                   handoff_remote_activity_get_device_name(remote) + ": continuing it");
    if (handoff_application_continue(app, handoff_remote_activity_get_id(remote)) != HANDOFF_OK)
        say(*side, std::string("cannot continue: ") + handoff_last_error_message());
}

int onWillContinue(handoff_application *, const char *type, void *data) {
    say(*static_cast<Side *>(data), std::string("will continue ") + type);
    return 0;
}

int onContinue(handoff_application *, handoff_activity *, handoff_restoration_handler *handler,
               void *data) {
    auto *side = static_cast<Side *>(data);
    handoff_restoration_handler_restore(handler, &side->editor, 1);
    handoff_restoration_handler_free(handler);
    say(*side, "restored \"" + side->restored + "\"");
    return 1; // handled: the sender hears it was continued
}

void onFail(handoff_application *, const char *, int error, const char *message, void *data) {
    auto *side = static_cast<Side *>(data);
    say(*side, "failed (" + std::to_string(error) + "): " + message);
    QCoreApplication::exit(1);
}

void onRestore(handoff_responder *, handoff_activity *activity, void *data) {
    auto *side = static_cast<Side *>(data);
    handoff_value *info = handoff_activity_copy_user_info(activity);
    const char *text = handoff_value_get_string(handoff_value_dictionary_get(info, "text"), nullptr);
    side->restored = std::string(handoff_activity_get_title(activity)) + ": " + (text ? text : "");
    handoff_value_free(info);
}

// ---- the sender's editor and activity delegate

void onUpdate(handoff_responder *, handoff_activity *activity, void *) {
    handoff_value *entries = handoff_value_new_dictionary();
    handoff_value *text = handoff_value_new_string("Buy milk, call Ada");
    handoff_value_dictionary_set(entries, "text", text);
    handoff_activity_add_user_info_entries(activity, entries);
    handoff_value_free(text);
    handoff_value_free(entries);
}

void onWasContinued(handoff_activity *, void *data) {
    auto *side = static_cast<Side *>(data);
    say(*side, "the note was continued on the other device");
    side->done = true;
    QCoreApplication::exit(0);
}

bool start(Side &side, const char *deviceId, const char *deviceName, int port, int peerPort) {
    handoff_manifest *manifest = handoff_manifest_new("com.example.qtnotes", "QTNOTES");
    handoff_manifest_declare_activity_type(manifest, kType);
    handoff_application_delegate delegate = HANDOFF_APPLICATION_DELEGATE_INIT;
    delegate.activity_available = onAvailable;
    delegate.will_continue_user_activity = onWillContinue;
    delegate.continue_user_activity = onContinue;
    delegate.did_fail_to_continue_user_activity = onFail;
    side.app = handoff_application_new(manifest, &delegate, &side, nullptr);
    handoff_manifest_free(manifest);
    if (side.app == nullptr) return false;

    handoff_responder_callbacks editor = HANDOFF_RESPONDER_CALLBACKS_INIT;
    editor.update_user_activity_state = onUpdate;
    editor.restore_user_activity_state = onRestore;
    side.editor = handoff_responder_new(side.app, &editor, &side, nullptr);

    handoff_account *account = handoff_account_from_key(kDemoKey, sizeof kDemoKey);
    std::string peer = "127.0.0.1:" + std::to_string(peerPort);
    const char *peers[] = {peer.c_str()};
    handoff_continuity_options options = HANDOFF_CONTINUITY_OPTIONS_INIT;
    options.account = account;
    options.device_id = deviceId; // two devices in one process
    options.device_name = deviceName;
    options.beacon_port = port;
    options.disable_multicast = 1;
    options.peers = peers;
    options.peer_count = 1;
    options.channel_address = "127.0.0.1:0";
    int status = handoff_application_start_continuity(side.app, &options);
    handoff_account_free(account);
    return status == HANDOFF_OK;
}

} // namespace

int main(int argc, char **argv) {
    QCoreApplication qt(argc, argv);
    Side sender("sender"), receiver("receiver");
    int senderPort = freeUdpPort(), receiverPort = freeUdpPort();
    if (senderPort < 0 || receiverPort < 0 || senderPort == receiverPort ||
        !start(receiver, "0000000000000000000000000000a7b2", "Qt desktop", receiverPort,
               senderPort) ||
        !start(sender, "0000000000000000000000000000a7b1", "Qt laptop", senderPort,
               receiverPort)) {
        std::fprintf(stderr, "qt_handoff: set-up failed: %s\n", handoff_last_error_message());
        return 1;
    }
    // All of the integration: one notifier per application.
    QSocketNotifier *senderNotifier = handoffAttachToQt(sender.app);
    QSocketNotifier *receiverNotifier = handoffAttachToQt(receiver.app);

    handoff_activity *note = handoff_activity_new(kType);
    handoff_activity_set_title(note, "Shopping list");
    handoff_activity_delegate noteDelegate = HANDOFF_ACTIVITY_DELEGATE_INIT;
    noteDelegate.user_activity_was_continued = onWasContinued;
    handoff_activity_set_delegate(note, &noteDelegate, &sender, nullptr);
    handoff_responder_set_user_activity(sender.editor, note);
    handoff_activity_set_flag(note, HANDOFF_ACTIVITY_NEEDS_SAVE, 1);
    handoff_application_become_current(sender.app, note);
    say(sender, "offering \"Shopping list\"");

    // A bound, not a clock the handoff waits for.
    QTimer::singleShot(60000, &qt, [] {
        std::fprintf(stderr, "qt_handoff: no handoff within 60 s\n");
        QCoreApplication::exit(1);
    });
    int result = qt.exec();
    bool restored = receiver.restored == "Shopping list: Buy milk, call Ada";
    if (result == 0 && !restored) std::fprintf(stderr, "qt_handoff: restored the wrong state\n");

    delete senderNotifier; // before the applications they dispatch
    delete receiverNotifier;
    handoff_activity_free(note);
    handoff_responder_free(sender.editor);
    handoff_responder_free(receiver.editor);
    handoff_application_free(sender.app);
    handoff_application_free(receiver.app);
    bool ok = result == 0 && sender.done && restored;
    std::printf("qt_handoff: %s\n", ok ? "handoff complete on Qt's event loop" : "FAILED");
    return ok ? 0 : 1;
}
