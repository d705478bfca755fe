/// Told about an activity's life (Apple: NSUserActivityDelegate). The
/// runtime calls these on the application's dispatch thread only.
public protocol UserActivityDelegate: AnyObject {
    /// The activity is about to be saved (after the responders'
    /// `updateUserActivityState`): last chance to add state.
    func userActivityWillSave(_ activity: UserActivity)
    /// Another device continued the activity.
    func userActivityWasContinued(_ activity: UserActivity)
}

extension UserActivityDelegate {
    public func userActivityWillSave(_ activity: UserActivity) {}
    public func userActivityWasContinued(_ activity: UserActivity) {}
}

/// Who holds an activity and acts on its requests: the application. The
/// model layer knows nothing more of the runtime than this.
public protocol UserActivityOwner: AnyObject, Sendable {
    /// `needsSave` became true: schedule a coalesced save.
    func activityNeedsSave(_ activity: UserActivity)
    /// The activity was invalidated: stop offering it.
    func activityWasInvalidated(_ activity: UserActivity)
}
