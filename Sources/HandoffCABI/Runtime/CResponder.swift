// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffBase
import HandoffModel
import HandoffRuntime

/// A Responder made of a host's `handoff_responder_callbacks`; the object
/// behind a `handoff_responder *`.
final class CResponder: Responder, @unchecked Sendable {
    // @unchecked: callbacks are immutable; Responder guards its own state.
    private let callbacks: handoff_responder_callbacks
    /// Dropped by `close()`: the host's destroy runs then, and no callback
    /// runs after it, even if a save in progress still holds the object.
    private let userData: Locked<UserData?>

    init(_ callbacks: UnsafePointer<handoff_responder_callbacks>, _ userData: UserData) throws(HandoffError) {
        let s = try CStruct(callbacks, "handoff_responder_callbacks")
        var c = handoff_responder_callbacks()
        c.update_user_activity_state = s.field(\.update_user_activity_state) ?? nil
        c.restore_user_activity_state = s.field(\.restore_user_activity_state) ?? nil
        self.callbacks = c
        self.userData = Locked(userData)
    }

    /// What handoff_responder_free does before releasing the handle.
    func close() {
        let data = userData.withLock { d in defer { d = nil }; return d }
        withExtendedLifetime(data) {}  // destroy runs here, outside the lock
    }

    override func updateUserActivityState(_ activity: UserActivity) { call(callbacks.update_user_activity_state, activity) }
    override func restoreUserActivityState(_ activity: UserActivity) { call(callbacks.restore_user_activity_state, activity) }

    private func call(_ callback: (@convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void)?,
                      _ activity: UserActivity) {
        guard let callback, let data = userData.withLock({ $0 }) else { return }
        let box = ActivityBox.handle(for: activity)
        withExtendedLifetime((box, data)) { callback(Handle.unretained(self), Handle.unretained(box), data.pointer) }
    }
}
