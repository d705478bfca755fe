// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// The controls the person owns (docs/agent.md "Settings"): pause all of
/// Handoff, per device stop offering to it or accepting from it, per app
/// mute it. Every engine on the device honours them, the agent's and an
/// embedded app's alike (`ContinuityEngine.apply(_:)`).
///
/// The defaults are what a device did before settings existed: not
/// paused, every device offered to and accepted from, no app muted.
public struct HandoffSettings: Sendable, Equatable {
    /// What is set for one other device of the account.
    public struct DeviceRule: Sendable, Equatable {
        /// False: this device serves no FETCH from that one.
        public var offer = true
        /// False: that device's adverts are ignored here.
        public var accept = true
        /// False: nothing from that device goes into this device's history
        /// (docs/history.md).
        public var history = true
        /// What the device was called when the rule was set: for people
        /// reading the file and `handoff settings`, never matched on.
        public var name: String?

        public init(offer: Bool = true, accept: Bool = true, name: String? = nil) {
            self.offer = offer
            self.accept = accept
            self.name = name
        }

        var isDefault: Bool { offer && accept && history }
    }

    /// Nothing sent, nothing shown, no FETCH served.
    public var paused = false
    /// By device id (32 lowercase hex digits).
    public var devices: [String: DeviceRule] = [:]
    /// Bundle identifiers whose activities are neither shown nor offered here.
    public var mutedApps: Set<String> = []
    /// Bundle identifiers the agent never gives a web page for their
    /// claimed web domains (docs/agent.md §13).
    public var webDomainsOff: Set<String> = []
    /// The history (docs/history.md): off keeps nothing new (what is kept stays).
    public var historyOff = false
    /// Other devices' activities eligible for search are indexed too.
    public var historyFromOtherDevices = false
    /// Retention: nil is the default (`HistoryRetention`).
    public var historyDays: Int?
    public var historyEntries: Int?
    /// Bundle identifiers whose activities are never indexed here.
    public var historyOffApps: Set<String> = []
    /// Documents: the size and wait limits, exclusions, declared folders
    /// (docs/documents.md §5).
    public var documents = DocumentSettings()
    /// Groups and keys this version does not know, kept as written so a
    /// rewrite by this version loses nothing a newer one wrote (group →
    /// key → value, plus the group order).
    var unknown: [String: [(key: String, value: String)]] = [:]
    var unknownOrder: [String] = []

    public init(paused: Bool = false, devices: [String: DeviceRule] = [:], mutedApps: Set<String> = []) {
        self.paused = paused
        self.devices = devices
        self.mutedApps = mutedApps
    }

    public static let defaults = HandoffSettings()

    public static func == (a: HandoffSettings, b: HandoffSettings) -> Bool {
        a.paused == b.paused && a.devices.filter { !$0.value.isDefault } == b.devices.filter { !$0.value.isDefault }
            // Kept groups compare as a set: a rewrite puts those of known
            // groups beside their group, so their order may change.
            && a.mutedApps == b.mutedApps && a.webDomainsOff == b.webDomainsOff
            && a.historyOff == b.historyOff && a.historyFromOtherDevices == b.historyFromOtherDevices
            && a.historyDays == b.historyDays && a.historyEntries == b.historyEntries && a.historyOffApps == b.historyOffApps
            && a.documents == b.documents
            && Set(a.unknownOrder) == Set(b.unknownOrder)
            && a.unknownOrder.allSatisfy { g in
                a.unknown[g]!.map(\.key) == b.unknown[g]!.map(\.key) && a.unknown[g]!.map(\.value) == b.unknown[g]!.map(\.value)
            }
    }

    // MARK: What the engine asks

    /// Whether this device offers anything at all (adverts, answers to
    /// solicitations, FETCH).
    public var offersAnything: Bool { !paused }

    /// Whether a FETCH from `deviceID` is served.
    public func offers(to deviceID: String) -> Bool {
        !paused && devices[deviceID]?.offer != false
    }

    /// Whether what `deviceID` advertises is shown here.
    public func accepts(from deviceID: String) -> Bool {
        !paused && devices[deviceID]?.accept != false
    }

    public func isMuted(_ bundleIdentifier: String) -> Bool {
        mutedApps.contains(bundleIdentifier)
    }

    /// Whether the agent may give the app web pages on the domains it claims.
    public func webDomainsAllowed(for bundleIdentifier: String) -> Bool {
        !webDomainsOff.contains(bundleIdentifier)
    }

    /// Whether a remote activity reaches the apps and notifications here.
    public func shows(_ remote: RemoteActivity) -> Bool {
        accepts(from: remote.deviceID) && !isMuted(remote.bundleIdentifier)
    }

    /// Whether this device advertises `advertisement` (a muted app's
    /// activities are not offered from here either).
    public func advertises(_ advertisement: Advertisement) -> Bool {
        !paused && !isMuted(advertisement.bundleIdentifier)
    }

    /// Whether an activity of `bundleIdentifier` from `deviceID` (nil: this
    /// device) may go into the history now.
    public func historyKeeps(bundleIdentifier: String, deviceID: String?) -> Bool {
        guard !historyOff, !historyOffApps.contains(bundleIdentifier) else { return false }
        guard let deviceID else { return true }
        return historyFromOtherDevices && devices[deviceID]?.history != false
    }

    // MARK: Checks shared by the parser and the CLI

    /// A device id as the settings file names it: 32 lowercase hex digits.
    public static func isDeviceID(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }

    /// A bundle identifier a settings group can name: 1–255 bytes of
    /// `A-Za-z0-9._-` (reverse DNS, as manifests and desktop ids use).
    public static func isBundleIdentifier(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.count <= 255 && text.utf8.allSatisfy {
            KeyFileParser.isKeyByte($0) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "_")
        }
    }
}
