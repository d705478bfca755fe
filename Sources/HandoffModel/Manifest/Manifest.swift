// SPDX-License-Identifier: MIT OR Apache-2.0
/// What an app declares about itself for Handoff: who it is (bundle
/// identifier), whose it is (team identifier: only apps of the same team
/// continue each other's activities) and which activity types it can
/// continue (Apple: `NSUserActivityTypes` in Info.plist).
///
/// An app may send types it does not declare; it is offered only the types
/// it declares. Types are matched exactly (byte for byte).
public struct Manifest: Sendable, Equatable {
    public let bundleIdentifier: String
    public let teamIdentifier: String
    /// Declared types, in declaration order, without duplicates.
    public private(set) var activityTypes: [String]
    /// The web domains it opens (Apple's associated domains), in
    /// declaration order, without duplicates (docs/agent.md §13).
    public private(set) var webDomains: [WebDomain] = []
    /// The kinds of document it continues (`CFBundleDocumentTypes` entries
    /// with `NSUbiquitousDocumentUserActivityType`), in declaration order;
    /// each one's activity type is in `activityTypes` too.
    public internal(set) var documentTypes: [DocumentType] = []
    /// What loading an Info.plist skipped and why: a key repeated in one
    /// dictionary (its last value is used), an `NSUserActivityTypes` that
    /// is not an array, an entry of it that is empty or not a string; each
    /// names the file, the key and what was found.
    public internal(set) var warnings: [String] = []

    /// Most activity types a manifest declares, and most UTF-8 bytes they
    /// take in all: the agent's HELLO must carry any valid manifest
    /// (docs/agent.md §3: 512 entries; 24 KiB of types is at most 48 KiB
    /// in a property list's UTF-16, within one message), so both modes
    /// accept the same manifests.
    public static let maxActivityTypes = 512
    public static let maxActivityTypeBytes = 24_576

    /// - Throws: `.invalidValue` for a bundle identifier that is not
    ///   reverse-DNS, a malformed team identifier or activity type, or
    ///   types over `maxActivityTypes` or `maxActivityTypeBytes`.
    public init(bundleIdentifier: String, teamIdentifier: String, activityTypes: [String] = []) throws(HandoffError) {
        try Identifier.checkBundleIdentifier(bundleIdentifier)
        try Identifier.checkTeamIdentifier(teamIdentifier)
        self.bundleIdentifier = bundleIdentifier
        self.teamIdentifier = teamIdentifier
        self.activityTypes = []
        for type in activityTypes { try declare(type) }
    }

    /// Declares one more activity type the app can continue; declaring a
    /// type twice is harmless. Any 1–255-byte string without control
    /// characters: reverse-DNS types (`com.example.app.edit`), intent class
    /// names (`INSendMessageIntent`) and short names (`ReadArticle`) alike.
    /// At most `maxActivityTypes` types of `maxActivityTypeBytes` in all.
    public mutating func declare(_ activityType: String) throws(HandoffError) {
        try Identifier.checkActivityType(activityType)
        guard !declares(activityType) else { return }
        guard activityTypes.count < Self.maxActivityTypes else {
            throw HandoffError(.invalidValue,
                "a manifest declares at most \(Self.maxActivityTypes) activity types; \(Identifier.quoted(activityType)) would be one more")
        }
        let bytes = activityTypes.reduce(0) { $0 + $1.utf8.count } + activityType.utf8.count
        guard bytes <= Self.maxActivityTypeBytes else {
            throw HandoffError(.invalidValue,
                "a manifest's activity types take at most \(Self.maxActivityTypeBytes) bytes in all; with \(Identifier.quoted(activityType)) they would take \(bytes)")
        }
        activityTypes.append(activityType)
    }

    /// Most web domains one manifest claims.
    public static let maxWebDomains = 32

    /// Claims one more web domain (`example.com`, `*.example.com`): an
    /// activity of type `NSUserActivityTypeBrowsingWeb` whose page is on
    /// it is offered to the app as continuable. Claiming one twice is
    /// harmless.
    /// - Throws: `.invalidValue` for a domain `WebDomain` refuses, or one
    ///   over `maxWebDomains`.
    public mutating func declare(webDomain text: String) throws(HandoffError) {
        let domain = try WebDomain(text)
        guard !webDomains.contains(domain) else { return }
        guard webDomains.count < Self.maxWebDomains else {
            throw HandoffError(.invalidValue,
                "a manifest claims at most \(Self.maxWebDomains) web domains; \(Identifier.quoted(text)) would be one more")
        }
        webDomains.append(domain)
    }

    /// True when a page on `host` is on one of the claimed domains.
    public func claims(host: String) -> Bool {
        webDomains.contains { $0.matches(host: host) }
    }

    /// True when the app can continue activities of this type.
    public func declares(_ activityType: String) -> Bool {
        // Byte for byte: Swift's == would match canonically equivalent strings.
        activityTypes.contains { $0.utf8.elementsEqual(activityType.utf8) }
    }
}
