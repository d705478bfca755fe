// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The activity an advert offers: just enough for a receiver to decide
/// whether one of its apps can continue it (type, team, bundle) and to show
/// it (title), plus the id it later FETCHes over the channel.
///
/// Optional strings travel as empty strings, so an empty `title` or
/// `webpageURL` is sent as absent and opens as nil; an `expiration` of 0 is
/// sent as "none" and opens as nil.
public struct BeaconActivity: Sendable, Equatable {
    /// 16 bytes: the activity's UUID.
    public var activityID: [UInt8]
    /// The activity type, any form apps declare; required (1...255 UTF-8
    /// bytes) in adverts.
    public var activityType: String
    /// Optional, at most 256 UTF-8 bytes.
    public var title: String?
    /// Required (1...255 UTF-8 bytes) in adverts.
    public var teamIdentifier: String
    /// Required (1...255 UTF-8 bytes) in adverts.
    public var bundleIdentifier: String
    /// Optional, at most 1024 UTF-8 bytes.
    public var webpageURL: String?
    /// Milliseconds since the Unix epoch; nil for none.
    public var expiration: UInt64?
    public var supportsContinuationStreams: Bool

    public init(
        activityID: [UInt8],
        activityType: String,
        title: String? = nil,
        teamIdentifier: String,
        bundleIdentifier: String,
        webpageURL: String? = nil,
        expiration: UInt64? = nil,
        supportsContinuationStreams: Bool = false
    ) {
        self.activityID = activityID
        self.activityType = activityType
        self.title = title
        self.teamIdentifier = teamIdentifier
        self.bundleIdentifier = bundleIdentifier
        self.webpageURL = webpageURL
        self.expiration = expiration
        self.supportsContinuationStreams = supportsContinuationStreams
    }

    /// What a withdrawal carries: the activity id and nothing else (every
    /// other field empty). `BeaconCodec.open` returns withdrawals in this form.
    public static func withdrawal(of activityID: [UInt8]) -> BeaconActivity {
        BeaconActivity(activityID: activityID, activityType: "", teamIdentifier: "", bundleIdentifier: "")
    }
}

/// One discovery beacon, as sealed by `BeaconCodec` and sent by
/// `BeaconTransport` (docs/PROTOCOL.md, "Discovery beacons").
///
/// - An **advert** (`kind == .advert`) always carries an activity, every
///   field of it.
/// - A **withdrawal** (`kind == .withdraw`) carries either only the id of
///   the activity it withdraws (`activity` is `BeaconActivity.withdrawal(of:)`;
///   other fields given to `seal` are not sent) or no activity at all,
///   meaning "everything this device offered" (e.g. when it shuts down).
/// - A **solicitation** (`kind == .solicit`) carries no activity: a receiver
///   that starts (or whose network changed) asks the devices nearby to
///   announce what they offer now instead of at their next keep-alive.
/// - A **presence** (`kind == .presence`, revision 3) carries no activity:
///   "this device is here" from a device that offers nothing (at start,
///   as the answer to a solicitation, and every `presenceInterval` of
///   silence), or with `leaving` set, "this device is going away" (its
///   last beacon on a clean stop). Older receivers drop the kind unread.
public struct Beacon: Sendable, Equatable {
    public enum Kind: UInt8, Sendable {
        case advert = 1
        case withdraw = 2
        case solicit = 3
        case presence = 4
    }

    public var kind: Kind
    /// Milliseconds since the Unix epoch, set by the sender when sealing.
    public var timestamp: UInt64
    /// Strictly increasing per sending device, across restarts too (seed it
    /// from the clock; see `ReplayGuard`).
    public var sequence: UInt64
    /// 16 bytes: the sending device's id.
    public var deviceID: [UInt8]
    /// At most 64 UTF-8 bytes.
    public var deviceName: String
    public var role: DeviceRole
    /// TCP port of the sender's channel; the receiver pairs it with the UDP
    /// source address of the beacon.
    public var channelPort: UInt16
    public var activity: BeaconActivity?
    /// A presence that says the device is going away (flag 0x01 of kind 4);
    /// false in every other kind.
    public var leaving: Bool

    public init(
        kind: Kind,
        timestamp: UInt64,
        sequence: UInt64,
        deviceID: [UInt8],
        deviceName: String,
        role: DeviceRole,
        channelPort: UInt16,
        activity: BeaconActivity?,
        leaving: Bool = false
    ) {
        self.kind = kind
        self.timestamp = timestamp
        self.sequence = sequence
        self.deviceID = deviceID
        self.deviceName = deviceName
        self.role = role
        self.channelPort = channelPort
        self.activity = activity
        self.leaving = leaving
    }
}

extension Beacon {
    /// A solicitation from a device, stamped now (timestamp and sequence
    /// from the wall clock in ms): what a listener that is not an engine
    /// (the `handoff` tool's finder) sends so devices nearby answer at once.
    public static func solicitation(deviceID: [UInt8], deviceName: String, role: DeviceRole) -> Beacon {
        let now = wallMilliseconds()
        return Beacon(kind: .solicit, timestamp: now, sequence: now, deviceID: deviceID,
                      deviceName: deviceName, role: role, channelPort: 0, activity: nil)
    }
}
