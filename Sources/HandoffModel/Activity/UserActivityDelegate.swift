// SPDX-License-Identifier: MIT OR Apache-2.0
/// Told about an activity's life (Apple: NSUserActivityDelegate). The
/// runtime calls these on the application's dispatch thread only.
public protocol UserActivityDelegate: AnyObject {
    /// The activity is about to be saved (after the responders'
    /// `updateUserActivityState`): last chance to add state.
    func userActivityWillSave(_ activity: UserActivity)
    /// Another device continued the activity: once per continuation.
    func userActivityWasContinued(_ activity: UserActivity)
    /// Another device fetched the activity and the fetch failed on this
    /// side: `error` is 4611 (userInfo too large), 4608/missing required
    /// key (`.missingRequiredKey`) or 4610 (the main thread answered after
    /// the other device stopped waiting, so this runs late). No Apple
    /// counterpart.
    func userActivity(_ activity: UserActivity, didFailToHandOffWith error: HandoffError)
    /// The device that continued the activity opened a continuation stream
    /// to this one (Apple: `userActivity(_:didReceive:outputStream:)`).
    /// The delegate owns `stream`: keep it, or let it go to close it.
    func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream)
    /// Whether `userActivity(_:didReceive:)` takes streams; when false,
    /// the other device's requests are refused. Default true.
    var takesContinuationStreams: Bool { get }
}

extension UserActivityDelegate {
    public func userActivityWillSave(_ activity: UserActivity) {}
    public func userActivityWasContinued(_ activity: UserActivity) {}
    public func userActivity(_ activity: UserActivity, didFailToHandOffWith error: HandoffError) {}
    public func userActivity(_ activity: UserActivity, didReceive stream: ContinuationStream) {}
    public var takesContinuationStreams: Bool { true }
}

/// Who holds an activity and acts on its requests: the application. The
/// model layer knows nothing more of the runtime than this.
public protocol UserActivityOwner: AnyObject, Sendable {
    /// `needsSave` became true: schedule a coalesced save.
    func activityNeedsSave(_ activity: UserActivity)
    /// The activity was invalidated: stop offering it.
    func activityWasInvalidated(_ activity: UserActivity)
    /// A property changed (called after the change, on the setter's
    /// thread, before the setter returns): what the activity would encode
    /// to may differ now, so a payload handed out ahead is withdrawn.
    func activityDidChange(_ activity: UserActivity)
    /// Opens a continuation stream to the device this activity was
    /// continued from; `completion` runs once, on the dispatch thread.
    /// - Throws: `.invalidState` when the activity was not continued from
    ///   another device through this owner.
    func activity(_ activity: UserActivity,
                  openContinuationStream completion: @escaping (Result<ContinuationStream, HandoffError>) -> Void) throws(HandoffError)
}

extension UserActivityOwner {
    public func activityDidChange(_ activity: UserActivity) {}
}
