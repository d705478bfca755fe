import HandoffModel
import HandoffRuntime

/// An ApplicationDelegate made of a host's `handoff_application_delegate`.
final class CApplicationDelegate: ApplicationDelegate, @unchecked Sendable {
    // @unchecked: immutable after init; called on the main thread only.
    typealias WillContinue = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Int32
    typealias Continue = @convention(c) (OpaquePointer?, OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Int32
    typealias DidFail = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
    typealias DidUpdate = @convention(c) (OpaquePointer?, OpaquePointer?, UnsafeMutableRawPointer?) -> Void

    private let willContinue: WillContinue?
    private let continueActivity: Continue?
    private let didFail: DidFail?
    private let didUpdate: DidUpdate?
    private let userData: UserData

    /// Copies the host's struct (NULL: no callbacks).
    init(_ delegate: UnsafeRawPointer?, _ userData: UserData) throws(HandoffError) {
        self.userData = userData
        guard let delegate else {
            willContinue = nil; continueActivity = nil; didFail = nil; didUpdate = nil
            return
        }
        let s = try CStruct(delegate, "handoff_application_delegate")
        willContinue = s.field(0, as: WillContinue?.self)
        continueActivity = s.field(1, as: Continue?.self)
        didFail = s.field(2, as: DidFail?.self)
        didUpdate = s.field(3, as: DidUpdate?.self)
    }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        guard let willContinue else { return false }
        return activityType.withCString { willContinue(Handle.unretained(application), $0, userData.pointer) } != 0
    }

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: RestorationHandler) -> Bool {
        guard let continueActivity else { return false }
        let box = ActivityBox.handle(for: userActivity)
        return withExtendedLifetime(box) {
            // The handler is the callee's: +1, released by handoff_restoration_handler_free.
            continueActivity(Handle.unretained(application), Handle.unretained(box),
                             Handle.retained(restorationHandler), userData.pointer) != 0
        }
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError) {
        guard let didFail else { return }
        activityType.withCString { type in
            error.message.withCString { message in
                didFail(Handle.unretained(application), type, error.code.rawValue, message, userData.pointer)
            }
        }
    }

    func application(_ application: Application, didUpdate userActivity: UserActivity) {
        guard let didUpdate else { return }
        let box = ActivityBox.handle(for: userActivity)
        withExtendedLifetime(box) {
            didUpdate(Handle.unretained(application), Handle.unretained(box), userData.pointer)
        }
    }
}

/// A UserActivityDelegate made of a host's `handoff_activity_delegate`.
final class CActivityDelegate: UserActivityDelegate, @unchecked Sendable {
    // @unchecked: immutable after init; called on the main thread only.
    typealias Callback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void

    private let willSave: Callback?
    private let wasContinued: Callback?
    private let userData: UserData

    init(_ delegate: UnsafeRawPointer, _ userData: UserData) throws(HandoffError) {
        let s = try CStruct(delegate, "handoff_activity_delegate")
        willSave = s.field(0, as: Callback?.self)
        wasContinued = s.field(1, as: Callback?.self)
        self.userData = userData
    }

    func userActivityWillSave(_ activity: UserActivity) { call(willSave, activity) }
    func userActivityWasContinued(_ activity: UserActivity) { call(wasContinued, activity) }

    private func call(_ callback: Callback?, _ activity: UserActivity) {
        guard let callback else { return }
        let box = ActivityBox.handle(for: activity)
        withExtendedLifetime(box) { callback(Handle.unretained(box), userData.pointer) }
    }
}
