// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase


/// What a person is doing in an app, described so another device can
/// continue it: Apple's NSUserActivity, reduced to its Handoff surface.
///
/// A reference type, as NSUserActivity is: responders and the runtime share
/// one activity. Every property may be read and written from any thread;
/// each access is atomic on its own.
public final class UserActivity: Sendable {
    /// Unique per activity; travels with it and names it on other devices.
    public let activityID: ActivityID
    /// The activity type: reverse-DNS (`com.example.shapes.create-shape`),
    /// an intent class name or a short name; 1–255 bytes, no control characters.
    public let activityType: String

    private let state: Locked<ActivityState>
    private let links = Locked(Links())

    /// References an activity keeps without owning them: the delegate and
    /// the owner are weak, as in Apple's API; the binding handle is the
    /// object a language binding maps this activity to.
    private struct Links: @unchecked Sendable {
        // @unchecked: only touched under `links`' lock; the referents are
        // used on the dispatch thread (delegate) or are Sendable (owner).
        weak var delegate: (any UserActivityDelegate)?
        var retainedDelegate: (any UserActivityDelegate)?
        weak var owner: (any UserActivityOwner)?
        weak var bindingHandle: AnyObject?
        var isInvalidated = false
        /// Bumped after every change of a property (`revision`).
        var revision: UInt64 = 0
    }

    /// Creates an activity of a type as `Manifest.declare` accepts it.
    /// - Throws: `.invalidValue` when the type is empty, over 255 bytes or
    ///   holds a control character.
    public init(activityType: String) throws(HandoffError) {
        try Identifier.checkActivityType(activityType)
        self.activityType = activityType
        self.activityID = ActivityID()
        self.state = Locked(ActivityState())
    }

    /// Rebuilds an activity received from another device.
    init(activityType: String, activityID: ActivityID, state: ActivityState) {
        self.activityType = activityType
        self.activityID = activityID
        self.state = Locked(state)
    }

    /// A consistent copy of every property, taken under one lock.
    public var snapshot: ActivityState { state.withLock { $0 } }

    // MARK: Plain properties

    public var title: String? {
        get { state.withLock { $0.title } }
        set { state.withLock { $0.title = newValue }; changed() }
    }

    public var targetContentIdentifier: String? {
        get { state.withLock { $0.targetContentIdentifier } }
        set { state.withLock { $0.targetContentIdentifier = newValue }; changed() }
    }

    public var persistentIdentifier: String? {
        get { state.withLock { $0.persistentIdentifier } }
        set { state.withLock { $0.persistentIdentifier = newValue }; changed() }
    }

    public var keywords: Set<String> {
        get { state.withLock { $0.keywords } }
        set { state.withLock { $0.keywords = newValue }; changed() }
    }

    /// The minimal set of userInfo keys that makes the activity restorable;
    /// an activity missing one of them is not handed off.
    public var requiredUserInfoKeys: Set<String> {
        get { state.withLock { $0.requiredUserInfoKeys } }
        set { state.withLock { $0.requiredUserInfoKeys = newValue }; changed() }
    }

    /// The userInfo keys whose strings the person's history may index for
    /// search when the activity is eligible for search (docs/history.md).
    public var searchableUserInfoKeys: Set<String> {
        get { state.withLock { $0.searchableUserInfoKeys } }
        set { state.withLock { $0.searchableUserInfoKeys = newValue }; changed() }
    }

    public var isEligibleForHandoff: Bool {
        get { state.withLock { $0.isEligibleForHandoff } }
        set { state.withLock { $0.isEligibleForHandoff = newValue }; changed() }
    }

    /// Indexed into this device's history while current, through the
    /// agent (docs/history.md); independent of `isEligibleForHandoff`.
    public var isEligibleForSearch: Bool {
        get { state.withLock { $0.isEligibleForSearch } }
        set { state.withLock { $0.isEligibleForSearch = newValue }; changed() }
    }

    /// Stored and sent for parity with Apple's API; nothing on Linux uses it.
    public var isEligibleForPublicIndexing: Bool {
        get { state.withLock { $0.isEligibleForPublicIndexing } }
        set { state.withLock { $0.isEligibleForPublicIndexing = newValue }; changed() }
    }

    /// Stored and sent for parity with Apple's API; nothing on Linux uses it.
    public var isEligibleForPrediction: Bool {
        get { state.withLock { $0.isEligibleForPrediction } }
        set { state.withLock { $0.isEligibleForPrediction = newValue }; changed() }
    }

    /// Asks for a lazy, coalesced save: the owning application later calls
    /// its responders' `updateUserActivityState`, then the delegate's
    /// `userActivityWillSave`, and clears the flag. Setting it many times
    /// before the save makes one save.
    public var needsSave: Bool {
        get { state.withLock { $0.needsSave } }
        set {
            state.withLock { $0.needsSave = newValue }
            changed()
            if newValue, let owner = links.withLock({ $0.owner }) {
                owner.activityNeedsSave(self)
            }
        }
    }

    /// Clears `needsSave` and says whether it was set: the save's claim.
    public func takeNeedsSave() -> Bool {
        state.withLock { s in
            defer { s.needsSave = false }
            return s.needsSave
        }
    }

    public var supportsContinuationStreams: Bool {
        get { state.withLock { $0.supportsContinuationStreams } }
        set { state.withLock { $0.supportsContinuationStreams = newValue }; changed() }
    }

    // MARK: Checked properties

    public var userInfo: UserInfo { state.withLock { $0.userInfo } }

    /// Replaces the userInfo.
    /// - Throws: `.invalidValue` (nothing changes) when a value breaks `UserInfoRules`.
    /// `checked`: the caller knows `userInfo` keeps `UserInfoRules` (a
    /// decoder that applies them made it), so it is not walked again.
    public func setUserInfo(_ userInfo: UserInfo, checked: Bool = false) throws(HandoffError) {
        if !checked { try UserInfoRules.check(userInfo) }
        state.withLock { $0.userInfo = userInfo }
        changed()
    }

    /// Merges entries into the userInfo; a key already there takes the new value.
    /// - Throws: `.invalidValue` (nothing changes) when the result breaks `UserInfoRules`.
    public func addUserInfoEntries(_ entries: UserInfo, checked: Bool = false) throws(HandoffError) {
        if !checked { try UserInfoRules.check(entries) }
        state.withLock { $0.userInfo.merge(entries) { _, new in new } }
        changed()
    }

    /// The web page to open when no app on the other device can continue.
    public var webpageURL: URLReference? { state.withLock { $0.webpageURL } }

    /// - Throws: `.invalidValue` unless the URL is http or https.
    public func setWebpageURL(_ url: URLReference?) throws(HandoffError) {
        if let url { try Self.checkWebURL(url, property: "webpageURL") }
        state.withLock { $0.webpageURL = url }
        changed()
    }

    /// The page that referred the person to the content, if any.
    public var referrerURL: URLReference? { state.withLock { $0.referrerURL } }

    /// - Throws: `.invalidValue` unless the URL is http or https.
    public func setReferrerURL(_ url: URLReference?) throws(HandoffError) {
        if let url { try Self.checkWebURL(url, property: "referrerURL") }
        state.withLock { $0.referrerURL = url }
        changed()
    }

    /// After this date the activity is no longer offered to other devices.
    public var expirationDate: Timestamp? { state.withLock { $0.expirationDate } }

    /// - Throws: `.invalidValue` for a date that is not finite.
    public func setExpirationDate(_ date: Timestamp?) throws(HandoffError) {
        if let date, !date.timeIntervalSinceReferenceDate.isFinite {
            throw HandoffError(.invalidValue, "expirationDate must be a finite point in time")
        }
        state.withLock { $0.expirationDate = date }
        changed()
    }

    /// True when an expiration date is set and has passed at `now`.
    public func isExpired(at now: Timestamp = Timestamp()) -> Bool {
        guard let expirationDate else { return false }
        return expirationDate <= now
    }

    // MARK: Links

    /// Told about saves and continuation, on the dispatch thread. Weak.
    public var delegate: (any UserActivityDelegate)? {
        get { links.withLock { $0.delegate } }
        set { links.withLock { $0.delegate = newValue; $0.retainedDelegate = nil } }
    }

    /// Sets the delegate and keeps it alive as long as the activity (or
    /// until replaced): for bindings whose delegate object nobody else holds.
    public func retainDelegate(_ delegate: (any UserActivityDelegate)?) {
        links.withLock { l in
            l.delegate = delegate
            l.retainedDelegate = delegate
        }
    }

    /// The application holding the activity. Weak; set by the runtime.
    public var owner: (any UserActivityOwner)? {
        get { links.withLock { $0.owner } }
        set { links.withLock { $0.owner = newValue } }
    }

    /// For language bindings: the one handle object this activity maps to
    /// while that object lives, so a C host sees the same pointer every
    /// time. Returns the live one, or makes it with `make` and keeps a weak
    /// reference; atomic, so two threads never make two.
    public func bindingHandle<T: AnyObject>(_ make: () -> T) -> T {
        links.withLock { l in
            if let handle = l.bindingHandle as? T { return handle }
            let handle = make()
            l.bindingHandle = handle
            return handle
        }
    }

    /// Ends the activity for good: it is withdrawn from other devices and
    /// never becomes current again. Invalidating twice is harmless.
    public func invalidate() {
        let owner: (any UserActivityOwner)? = links.withLock { l in
            guard !l.isInvalidated else { return nil }
            l.isInvalidated = true
            return l.owner
        }
        owner?.activityWasInvalidated(self)
    }

    public var isInvalidated: Bool { links.withLock { $0.isInvalidated } }

    /// Counts the changes of its properties: a payload encoded while it
    /// stayed the same is what the activity encodes to now. Read it before
    /// encoding; it moves after a change is made, before the owner hears.
    public var revision: UInt64 { links.withLock { $0.revision } }

    /// After a property changed: a new revision, and the owner told.
    private func changed() {
        let owner: (any UserActivityOwner)? = links.withLock { l in
            l.revision &+= 1
            return l.owner
        }
        owner?.activityDidChange(self)
    }

    // MARK: Continuation streams

    /// Opens a continuation stream to the device this activity was
    /// continued from (Apple: `getContinuationStreams`): for data beyond
    /// the 3 KB userInfo budget. `completion` runs once, on the
    /// application's dispatch thread, with the stream or a user-activity
    /// error (4609 when the device cannot be reached, 4608 when it refuses).
    /// Each call opens another stream. Any thread.
    /// - Throws: `.invalidState` when the activity does not support
    ///   continuation streams, or was not continued from another device.
    public func getContinuationStreams(
        completion: @escaping (Result<ContinuationStream, HandoffError>) -> Void
    ) throws(HandoffError) {
        guard supportsContinuationStreams else {
            throw HandoffError(.invalidState, "activity \(Identifier.quoted(activityType)) does not support continuation streams: the sending app sets supportsContinuationStreams before the activity is continued")
        }
        guard !isInvalidated else {
            throw HandoffError(.invalidState, "the activity was invalidated: it has no continuation streams any more")
        }
        guard let owner else {
            throw HandoffError(.invalidState, "continuation streams exist only for an activity continued from another device (this one was not)")
        }
        try owner.activity(self, openContinuationStream: completion)
    }

    // MARK: Handoff readiness

    /// The required userInfo keys the userInfo lacks, sorted.
    public var missingRequiredKeys: [String] {
        let s = snapshot
        return s.requiredUserInfoKeys.filter { s.userInfo[$0] == nil }.sorted()
    }

    /// Size of the encoded userInfo, the figure the 3072-byte budget counts.
    public var encodedUserInfoSize: Int { UserInfoCoding.encode(userInfo).count }

    static func checkWebURL(_ url: URLReference, property: String) throws(HandoffError) {
        let scheme = url.scheme?.lowercased()
        guard scheme == "http" || scheme == "https", url.host != nil else {
            throw HandoffError(.invalidValue,
                "\(property) \(Identifier.quoted(url.absoluteString)) must be an http or https URL with a host (Handoff opens it in a browser)")
        }
    }
}

/// Every mutable property of a `UserActivity`, as one value.
public struct ActivityState: Sendable, Equatable {
    public var title: String?
    public var userInfo: UserInfo = [:]
    public var requiredUserInfoKeys: Set<String> = []
    public var searchableUserInfoKeys: Set<String> = []
    public var webpageURL: URLReference?
    public var referrerURL: URLReference?
    public var targetContentIdentifier: String?
    public var expirationDate: Timestamp?
    public var keywords: Set<String> = []
    public var persistentIdentifier: String?
    public var isEligibleForHandoff = true
    public var isEligibleForSearch = false
    public var isEligibleForPublicIndexing = false
    public var isEligibleForPrediction = false
    public var needsSave = false
    public var supportsContinuationStreams = false

    public init() {}
}
