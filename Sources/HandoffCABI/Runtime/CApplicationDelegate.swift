// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffModel
import HandoffRuntime

/// An ApplicationDelegate made of a host's `handoff_application_delegate`.
final class CApplicationDelegate: ApplicationDelegate, @unchecked Sendable {
    // @unchecked: immutable after init; called on the main thread only.
    private let callbacks: handoff_application_delegate
    private let userData: UserData

    /// Copies the host's struct (NULL: no callbacks); fields beyond the
    /// host's `size` stay NULL.
    init(_ delegate: UnsafePointer<handoff_application_delegate>?, _ userData: UserData) throws(HandoffError) {
        self.userData = userData
        var c = handoff_application_delegate()
        if let delegate {
            let s = try CStruct(delegate, "handoff_application_delegate")
            c.will_continue_user_activity = s.field(\.will_continue_user_activity) ?? nil
            c.continue_user_activity = s.field(\.continue_user_activity) ?? nil
            c.did_fail_to_continue_user_activity = s.field(\.did_fail_to_continue_user_activity) ?? nil
            c.did_update_user_activity = s.field(\.did_update_user_activity) ?? nil
            c.activity_available = s.field(\.activity_available) ?? nil
            c.activity_updated = s.field(\.activity_updated) ?? nil
            c.activity_withdrawn = s.field(\.activity_withdrawn) ?? nil
            c.open_webpage = s.field(\.open_webpage) ?? nil
        }
        callbacks = c
    }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        guard let f = callbacks.will_continue_user_activity else { return false }
        return activityType.withCString { f(Handle.unretained(application), $0, userData.pointer) } != 0
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: RestorationHandler) -> Bool {
        guard let f = callbacks.continue_user_activity else { return false }
        let box = ActivityBox.handle(for: userActivity)
        return withExtendedLifetime(box) {
            // The handler is the callee's: +1, released by handoff_restoration_handler_free.
            f(Handle.unretained(application), Handle.unretained(box), Handle.retained(restorationHandler), userData.pointer) != 0
        }
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError) {
        guard let f = callbacks.did_fail_to_continue_user_activity else { return }
        activityType.withCString { type in
            error.message.withCString { message in
                f(Handle.unretained(application), type, error.code.rawValue, message, userData.pointer)
            }
        }
    }

    func application(_ application: Application, didUpdate userActivity: UserActivity) {
        guard let f = callbacks.did_update_user_activity else { return }
        let box = ActivityBox.handle(for: userActivity)
        withExtendedLifetime(box) { f(Handle.unretained(application), Handle.unretained(box), userData.pointer) }
    }

    func application(_ application: Application, remoteActivityBecameAvailable remote: RemoteActivity) {
        lend(remote, to: callbacks.activity_available, application)
    }

    func application(_ application: Application, remoteActivityWasUpdated remote: RemoteActivity) {
        lend(remote, to: callbacks.activity_updated, application)
    }

    func application(_ application: Application, remoteActivityWasWithdrawn remote: RemoteActivity) {
        lend(remote, to: callbacks.activity_withdrawn, application)
    }

    func application(_ application: Application, openWebpage url: URLReference, for remote: RemoteActivity) {
        guard let f = callbacks.open_webpage else {
            WebFallback.open(url)
            return
        }
        let box = RemoteActivityBox(remote)
        withExtendedLifetime(box) {
            url.absoluteString.withCString { f(Handle.unretained(application), $0, Handle.unretained(box), userData.pointer) }
        }
    }

    private typealias RemoteCallback = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void

    private func lend(_ remote: RemoteActivity, to f: RemoteCallback?, _ application: Application) {
        guard let f else { return }
        let box = RemoteActivityBox(remote)
        withExtendedLifetime(box) { f(Handle.unretained(application), Handle.unretained(box), userData.pointer) }
    }
}

/// An UserActivityDelegate made of a host's `handoff_activity_delegate`.
final class CActivityDelegate: UserActivityDelegate, @unchecked Sendable {
    // @unchecked: immutable after init; called on the main thread only.
    private let callbacks: handoff_activity_delegate
    private let userData: UserData

    init(_ delegate: UnsafePointer<handoff_activity_delegate>, _ userData: UserData) throws(HandoffError) {
        let s = try CStruct(delegate, "handoff_activity_delegate")
        var c = handoff_activity_delegate()
        c.user_activity_will_save = s.field(\.user_activity_will_save) ?? nil
        c.user_activity_was_continued = s.field(\.user_activity_was_continued) ?? nil
        c.user_activity_did_receive_stream = s.field(\.user_activity_did_receive_stream) ?? nil
        c.user_activity_did_fail_to_hand_off = s.field(\.user_activity_did_fail_to_hand_off) ?? nil
        callbacks = c
        self.userData = userData
    }

    func userActivityWillSave(_ activity: UserActivity) { call(callbacks.user_activity_will_save, activity) }
    func userActivityWasContinued(_ activity: UserActivity) { call(callbacks.user_activity_was_continued, activity) }

    var takesContinuationStreams: Bool { callbacks.user_activity_did_receive_stream != nil }

    func userActivity(_ activity: UserActivity, didFailToHandOffWith error: HandoffError) {
        guard let callback = callbacks.user_activity_did_fail_to_hand_off else { return }
        let box = ActivityBox.handle(for: activity)
        withExtendedLifetime(box) {
            error.message.withCString { callback(Handle.unretained(box), error.code.rawValue, $0, userData.pointer) }
        }
    }

    func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {
        guard let callback = callbacks.user_activity_did_receive_stream else { return }  // the stream closes
        let box = ActivityBox.handle(for: activity)
        withExtendedLifetime(box) { callback(Handle.unretained(box), stream.takeFileDescriptor(), userData.pointer) }
    }

    private func call(_ callback: (@convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void)?, _ activity: UserActivity) {
        guard let callback else { return }
        let box = ActivityBox.handle(for: activity)
        withExtendedLifetime(box) { callback(Handle.unretained(box), userData.pointer) }
    }
}
