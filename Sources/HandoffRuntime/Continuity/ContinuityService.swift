// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What the runtime needs from the layer that talks to other devices
/// (docs/ARCHITECTURE.md "Layers"): advertise this app's current activity, fetch a remote
/// one, and confirm a continuation. The runtime knows nothing of sockets
/// beyond this. Every method may be called from any thread.
public protocol ContinuityService: AnyObject, Sendable {
    /// Connects the service to the application it serves; called once.
    func attach(_ endpoint: any ContinuityEndpoint)
    /// The activity to offer other devices from now on; nil withdraws it.
    func advertise(_ advertisement: Advertisement?)
    /// Fetches a remote activity's payload. `completion` runs exactly once,
    /// on any thread, with the payload or a user-activity error (4608-4611).
    func fetch(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void)
    /// Fetches a remote activity's payload as its sender sent it: its
    /// documents described but not resolved, nothing brought along
    /// (PROTOCOL.md §12). For the device's history; `fetch` is for
    /// continuing. `completion` as for `fetch`.
    func fetchAsSent(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void)
    /// Resolves the documents of a payload fetched as sent (a saved one,
    /// continued from the history) as `fetch` does, bringing bytes from
    /// `remote`'s device while it offers the activity. Blocking work runs
    /// off the caller's thread; `completion` runs exactly once, any thread.
    func resolveDocuments(_ payload: [UInt8], from remote: RemoteActivity,
                          completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void)
    /// Tells the sender that its activity was continued here.
    func confirmContinued(_ remote: RemoteActivity)
    /// Opens a continuation stream to the device `remote` came from.
    /// `completion` runs exactly once, on any thread, with this side's end
    /// of the stream or a user-activity error (4608-4611).
    func openStream(_ remote: RemoteActivity,
                    completion: @escaping @Sendable (Result<ContinuationStream, HandoffError>) -> Void)
    /// Stops: withdraws what is advertised, lets go of the endpoint.
    func detach()
    /// Whether `offer` is heard (the agent's client): the application then
    /// hands out its advertised activity's payload ahead of any fetch.
    var takesOffers: Bool { get }
    /// Whether `index` is heard (the agent's client, once the agent speaks
    /// revision 3): the application then hands over the payload of its
    /// current activity when it is eligible for search.
    var takesIndex: Bool { get }
    /// The payload of the current activity `activityID`, eligible for
    /// search, for the device's history (INDEX, docs/history.md). Sent in
    /// order with `advertise`.
    func index(_ activityID: ActivityID, payload: [UInt8])
    /// Deletes saved activities of this app from the device's history
    /// (FORGET). `completion` runs exactly once, on any thread.
    func forgetSaved(_ selection: SavedActivitySelection,
                     completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void)
    /// The payload the advertised activity `activityID` encodes to now,
    /// served for it without asking the application until it is replaced
    /// or withdrawn (nil; a new advertisement withdraws it too). Sent in
    /// order with `advertise` (docs/agent.md §3, OFFER).
    func offer(_ activityID: ActivityID, payload: [UInt8]?)
    /// Has the document portal give this sandboxed app the document at the
    /// `file:` URL `url`, which this service delivered to it (GRANT,
    /// docs/agent.md §3): the path the app opens. Only the agent's client
    /// can; any other service fails with `.invalidState`. `completion` runs
    /// exactly once, on any thread (never the caller's main loop).
    func grantDocumentAccess(_ url: String, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void)
    /// Ends one grant of `url` (REVOKE). `completion` as for the grant.
    func revokeDocumentAccess(_ url: String, completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void)
}

/// Which of an app's saved activities a deletion takes from the device's
/// history (Apple's `deleteSavedUserActivities(withPersistentIdentifiers:)`
/// and `deleteAllSavedUserActivities`; FORGET, docs/agent.md §3).
public enum SavedActivitySelection: Sendable, Equatable {
    /// Those with these persistent identifiers, of the app's team
    /// (1–512 identifiers of 1–4,096 bytes).
    case identifiers([String])
    /// Every entry of the app's bundle.
    case all

    public static let maxIdentifiers = 512
    public static let maxIdentifierBytes = 4096

    /// What a deletion hears where no history is kept for this app.
    public static let noHistory = HandoffError(.connectionUnavailable,
        "the history is kept by the handoff agent, and this application does not go through one (its continuity is embedded, or not started): nothing was deleted")
}

/// The application side, as the continuity layer sees it.
public protocol ContinuityEndpoint: AnyObject, Sendable {
    /// What this app declares: the receiving side offers only activities
    /// of its team and declared types (others only for their web page).
    var manifest: Manifest { get }
    /// Whom the service gates other devices' activities for
    /// (`ActivityGate`): by default this manifest; an observer sees every
    /// team's and type's activities (the agent's hub, the `handoff` command).
    var audience: ActivityAudience { get }
    /// An activity another device offers appeared, changed or went away.
    func remoteActivityChanged(_ change: RemoteActivityChange)
    /// Another device asks for the activity `activityID`. The application
    /// runs the pending save on its main thread, then `reply` runs exactly
    /// once, on any thread, with the payload or a user-activity error, and
    /// returns whether the service still waited for it (false after its
    /// timeout: the other device heard 4610). A host that never dispatches
    /// never replies: the service times out.
    func provideActivity(_ activityID: ActivityID, reply: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Bool)
    /// The device that fetched `activityID` continued it: sent once per
    /// fetch it restored, so an activity continued many times hears it
    /// each time.
    func activityWasContinued(_ activityID: ActivityID)
    /// A payload this app handed over (its `provideActivity` reply was
    /// taken) was not taken after all by what asked for it: through the
    /// agent, the app's answer reached the agent after its engine stopped
    /// waiting (UNDELIVERED, docs/agent.md §3). The activity's delegate
    /// hears `didFailToHandOff` with `error`, as when `reply` returns false
    /// in embedded mode. Any thread.
    func handOffFailed(_ activityID: ActivityID, _ error: HandoffError)
    /// The payload offered for `activityID` was handed to a device that
    /// fetched it: one more fetch to be confirmed, as when `reply` returns
    /// true. On the thread that tells it (before any later event), at once.
    func activityServed(_ activityID: ActivityID)
    /// The device that fetched `activityID` opens a continuation stream.
    /// The application checks, on its main thread, that the activity was
    /// sent and supports streams, then calls `reply` exactly once: with
    /// success, `reply` returns whether the service still waits, and only
    /// then does the activity's delegate get `stream` (else it is closed).
    func acceptStream(_ activityID: ActivityID, _ stream: ContinuationStream,
                      reply: @escaping @Sendable (Result<Void, HandoffError>) -> Bool)
    /// The person chose, outside the app (the agent's notification,
    /// `handoff continue`, a launch to continue), to continue `remote`
    /// here: the application proceeds exactly as when it is chosen in the
    /// app (`willContinue`, the fetch, then `continue` or
    /// `didFailToContinue`).
    func continueChosen(_ remote: RemoteActivity)
    /// `continueChosen` with the activation token of the person's click
    /// (docs/agent.md §3, CONTINUE's `activationToken`), when there is one.
    /// By default the token is dropped and `continueChosen(_:)` runs.
    func continueChosen(_ remote: RemoteActivity, activationToken: String?)
}

extension ContinuityEndpoint {
    public var audience: ActivityAudience { .application(manifest) }

    public func continueChosen(_ remote: RemoteActivity, activationToken: String?) { continueChosen(remote) }

    /// Endpoints that serve no activity of their own (observers) hear nothing.
    public func handOffFailed(_ activityID: ActivityID, _ error: HandoffError) {}
    public func activityServed(_ activityID: ActivityID) {}

    public func acceptStream(_ activityID: ActivityID, _ stream: ContinuationStream,
                             reply: @escaping @Sendable (Result<Void, HandoffError>) -> Bool) {
        _ = reply(.failure(HandoffError(.handoffFailed, "this endpoint takes no continuation streams")))
    }
}

extension ContinuityService {
    public func fetchAsSent(_ remote: RemoteActivity, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        fetch(remote, completion: completion)
    }
    public func resolveDocuments(_ payload: [UInt8], from remote: RemoteActivity,
                                 completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        completion(.success(payload))
    }
    public var takesOffers: Bool { false }
    public func offer(_ activityID: ActivityID, payload: [UInt8]?) {}
    public var takesIndex: Bool { false }
    public func index(_ activityID: ActivityID, payload: [UInt8]) {}

    public func forgetSaved(_ selection: SavedActivitySelection,
                            completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void) {
        completion(.failure(SavedActivitySelection.noHistory))
    }

    public func grantDocumentAccess(_ url: String, completion: @escaping @Sendable (Result<[UInt8], HandoffError>) -> Void) {
        completion(.failure(SecurityScopedAccess.needsAgent))
    }
    public func revokeDocumentAccess(_ url: String, completion: @escaping @Sendable (Result<Void, HandoffError>) -> Void) {
        completion(.failure(SecurityScopedAccess.needsAgent))
    }

    public func openStream(_ remote: RemoteActivity,
                           completion: @escaping @Sendable (Result<ContinuationStream, HandoffError>) -> Void) {
        completion(.failure(HandoffError(.handoffFailed, "this continuity service does not carry continuation streams")))
    }
}

/// What this application offers: the current activity, as the continuity
/// layer needs it to announce it.
public struct Advertisement: Sendable, Equatable {
    public var activityID: ActivityID
    public var activityType: String
    public var title: String?
    public var bundleIdentifier: String
    public var teamIdentifier: String
    public var webpageURL: URLReference?
    public var expirationDate: Timestamp?
    public var supportsContinuationStreams: Bool

    public init(activityID: ActivityID, activityType: String, title: String?, bundleIdentifier: String,
                teamIdentifier: String, webpageURL: URLReference?, expirationDate: Timestamp?, supportsContinuationStreams: Bool) {
        self.activityID = activityID
        self.activityType = activityType
        self.title = title
        self.bundleIdentifier = bundleIdentifier
        self.teamIdentifier = teamIdentifier
        self.webpageURL = webpageURL
        self.expirationDate = expirationDate
        self.supportsContinuationStreams = supportsContinuationStreams
    }
}

/// An activity another device offers.
public struct RemoteActivity: Sendable, Hashable {
    public var deviceID: String
    public var deviceName: String
    public var activityID: ActivityID
    public var activityType: String
    public var title: String?
    public var webpageURL: URLReference?
    public var supportsContinuationStreams: Bool
    /// No app here can continue it (another team, an undeclared type), but
    /// it has a web page: continuing it opens that page instead.
    public var isWebOnly: Bool
    /// When this device first saw it offered.
    public var firstSeen: Timestamp
    /// The sending app's team and bundle, as its beacon names them.
    public var teamIdentifier: String
    public var bundleIdentifier: String
    /// When the sender's app said it expires (its beacon's expiration);
    /// nil for none. The engine withdraws it then.
    public var expirationDate: Timestamp?

    public init(deviceID: String, deviceName: String, activityID: ActivityID, activityType: String,
                title: String? = nil, webpageURL: URLReference? = nil, supportsContinuationStreams: Bool = false,
                isWebOnly: Bool = false, firstSeen: Timestamp = Timestamp(), teamIdentifier: String = "",
                bundleIdentifier: String = "", expirationDate: Timestamp? = nil) {
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.activityID = activityID
        self.activityType = activityType
        self.title = title
        self.webpageURL = webpageURL
        self.supportsContinuationStreams = supportsContinuationStreams
        self.isWebOnly = isWebOnly
        self.firstSeen = firstSeen
        self.teamIdentifier = teamIdentifier
        self.bundleIdentifier = bundleIdentifier
        self.expirationDate = expirationDate
    }

    /// Seconds since this device first saw it offered.
    public var age: Double { max(0, Timestamp().timeIntervalSince(firstSeen)) }
}

/// What changed among the activities other devices offer.
public enum RemoteActivityChange: Sendable, Equatable {
    case available(RemoteActivity)
    case updated(RemoteActivity)
    case withdrawn(RemoteActivity)

    public var remote: RemoteActivity {
        switch self {
        case .available(let r), .updated(let r), .withdrawn(let r): r
        }
    }
}
