import HandoffModel
import HandoffRuntime

/// A Responder made of a host's `handoff_responder_callbacks`; the object
/// behind a `handoff_responder *`.
final class CResponder: Responder, @unchecked Sendable {
    // @unchecked: callbacks are immutable; Responder guards its own state.
    typealias Callback = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void

    private let update: Callback?
    private let restore: Callback?
    private let userData: UserData

    init(_ callbacks: UnsafeRawPointer, _ userData: UserData) throws(HandoffError) {
        let s = try CStruct(callbacks, "handoff_responder_callbacks")
        update = s.field(0, as: Callback?.self)
        restore = s.field(1, as: Callback?.self)
        self.userData = userData
    }

    override func updateUserActivityState(_ activity: UserActivity) { call(update, activity) }
    override func restoreUserActivityState(_ activity: UserActivity) { call(restore, activity) }

    private func call(_ callback: Callback?, _ activity: UserActivity) {
        guard let callback else { return }
        let box = ActivityBox.handle(for: activity)
        withExtendedLifetime(box) { callback(Handle.unretained(self), Handle.unretained(box), userData.pointer) }
    }
}
