// SPDX-License-Identifier: MIT OR Apache-2.0

/// The activity payload: what the sender answers to a fetch, as a binary
/// property list dictionary (docs/PROTOCOL.md, "Activity payload").
///
/// Only what the other device needs travels: `needsSave` is local state.
/// Unknown keys are ignored when decoding so later versions can add some.
public enum ActivityCoding {
    public static let version: Int64 = 1

    /// A received payload must fit in this many bytes written canonically
    /// (docs/PROTOCOL.md §3), checked while it is read: a payload whose
    /// objects share references may stand for far more than its bytes. A
    /// sender's payload is canonical and travels in one channel frame
    /// (65,536 bytes by default), so no payload a sender can send is refused.
    public static let maxPayloadSize = 65_536

    enum Key {
        static let version = "version"
        static let activityID = "activityID"
        static let activityType = "activityType"
        static let title = "title"
        static let userInfo = "userInfo"
        static let requiredUserInfoKeys = "requiredUserInfoKeys"
        static let webpageURL = "webpageURL"
        static let referrerURL = "referrerURL"
        static let targetContentIdentifier = "targetContentIdentifier"
        static let expirationDate = "expirationDate"
        static let keywords = "keywords"
        static let searchableUserInfoKeys = "searchableUserInfoKeys"
        static let persistentIdentifier = "persistentIdentifier"
        static let eligibleForHandoff = "eligibleForHandoff"
        static let eligibleForSearch = "eligibleForSearch"
        static let eligibleForPublicIndexing = "eligibleForPublicIndexing"
        static let eligibleForPrediction = "eligibleForPrediction"
        static let supportsContinuationStreams = "supportsContinuationStreams"
    }

    /// Encodes an activity for handoff.
    /// - Throws: `.missingRequiredKey` when a required userInfo key is
    ///   absent; `.userInfoTooLarge` (4611) when the encoded userInfo is over
    ///   `UserInfoRules.payloadBudget` bytes.
    public static func encode(_ activity: UserActivity) throws(HandoffError) -> [UInt8] {
        try encode(activity, adding: [:])
    }

    /// Encodes an activity with top-level keys a later revision adds
    /// (PROTOCOL.md §12's `documents`), which the caller has checked; a
    /// key of the activity's own is never replaced.
    public static func encode(_ activity: UserActivity, adding extra: [String: PropertyListValue]) throws(HandoffError) -> [UInt8] {
        let s = activity.snapshot
        let missing = s.requiredUserInfoKeys.filter { s.userInfo[$0] == nil }.sorted()
        if !missing.isEmpty {
            throw HandoffError(.missingRequiredKey,
                "userInfo lacks required key(s) \(missing.map { "\"\($0)\"" }.joined(separator: ", ")); set them or remove them from requiredUserInfoKeys")
        }
        let userInfo = UserInfoCoding.propertyList(s.userInfo)
        try UserInfoRules.checkBudget(BinaryPropertyList.encode(userInfo).count)
        guard case .dictionary(var d) = payload(s, id: activity.activityID, type: activity.activityType, userInfo: userInfo) else {
            preconditionFailure("a payload is a dictionary")
        }
        for (key, value) in extra where d[key] == nil { d[key] = value }
        return BinaryPropertyList.encode(.dictionary(d))
    }

    /// The payload dictionary of an activity's state, its userInfo given
    /// already as a property list.
    static func payload(_ s: ActivityState, id: ActivityID, type: String, userInfo: PropertyListValue) -> PropertyListValue {
        var d: [String: PropertyListValue] = [
            Key.version: .integer(version),
            Key.activityID: .string(id.uuidString),
            Key.activityType: .string(type),
            Key.userInfo: userInfo,
            Key.eligibleForHandoff: .boolean(s.isEligibleForHandoff),
            Key.eligibleForSearch: .boolean(s.isEligibleForSearch),
            Key.eligibleForPublicIndexing: .boolean(s.isEligibleForPublicIndexing),
            Key.eligibleForPrediction: .boolean(s.isEligibleForPrediction),
            Key.supportsContinuationStreams: .boolean(s.supportsContinuationStreams),
        ]
        d[Key.title] = s.title.map(PropertyListValue.string)
        d[Key.webpageURL] = s.webpageURL.map { .string($0.absoluteString) }
        d[Key.referrerURL] = s.referrerURL.map { .string($0.absoluteString) }
        d[Key.targetContentIdentifier] = s.targetContentIdentifier.map(PropertyListValue.string)
        d[Key.persistentIdentifier] = s.persistentIdentifier.map(PropertyListValue.string)
        d[Key.expirationDate] = s.expirationDate.map { .date($0.timeIntervalSinceReferenceDate) }
        if !s.requiredUserInfoKeys.isEmpty {
            d[Key.requiredUserInfoKeys] = .array(s.requiredUserInfoKeys.sorted().map(PropertyListValue.string))
        }
        if !s.keywords.isEmpty {
            d[Key.keywords] = .array(s.keywords.sorted().map(PropertyListValue.string))
        }
        if !s.searchableUserInfoKeys.isEmpty {
            d[Key.searchableUserInfoKeys] = .array(s.searchableUserInfoKeys.sorted().map(PropertyListValue.string))
        }
        return .dictionary(d)
    }

    /// The size `encode` would write for a decoded activity, computed
    /// without writing it: the userInfo is measured on its own (no set
    /// sorted) and stands in as an empty dictionary (one value, one byte).
    static func canonicalSize(_ s: ActivityState, id: ActivityID, type: String) -> Int {
        var cost = BinaryPropertyList.measure(payload(s, id: id, type: type, userInfo: .dictionary([:])), null: nil, atMost: .max)!.cost
        let userInfo = UserInfoCoding.canonicalCost(of: s.userInfo)
        cost.objects += userInfo.objects - 1
        cost.bytes += userInfo.bytes - 1
        return cost.encodedSize
    }

    /// Decodes a payload into a new activity with the sender's activity id.
    /// - Throws: `.malformedData` for bytes that are not a valid payload;
    ///   `.userInfoTooLarge` (4611) when its userInfo is over budget.
    /// Work and memory are proportional to `bytes.count`: the payload is
    /// refused while it is read if it would be over `maxPayloadSize` written
    /// canonically, and its userInfo is measured against the budget before
    /// it is converted.
    public static func decode(_ bytes: [UInt8]) throws(HandoffError) -> UserActivity {
        try decode(bytes, keeping: []).activity
    }

    /// Decodes a payload as `decode(_:)` does, and hands back the values
    /// of the top-level `keys` it carries (keys a later revision adds,
    /// which the activity itself does not hold).
    public static func decode(_ bytes: [UInt8], keeping keys: Set<String>) throws(HandoffError)
        -> (activity: UserActivity, kept: [String: PropertyListValue]) {
        let plist: PropertyListValue
        do {
            plist = try BinaryPropertyList.decode(bytes, limits: UserInfoCoding.decodingLimits(canonicalSizeAtMost: maxPayloadSize))
        } catch {
            throw payloadError(error)
        }
        guard case .dictionary(let d) = plist else {
            throw HandoffError(.malformedData, "activity payload is not a dictionary")
        }
        let r = Reader(d)
        let v = try r.integer(Key.version)
        guard v == version else {
            throw HandoffError(.malformedData, "activity payload version \(v.map(String.init) ?? "missing") is not supported (this library reads version \(version)); update libhandoff on both devices")
        }
        guard let idString = try r.string(Key.activityID), let id = ActivityID(uuidString: idString) else {
            throw HandoffError(.malformedData, "activity payload has no valid activityID")
        }
        guard let type = try r.string(Key.activityType) else {
            throw HandoffError(.malformedData, "activity payload has no activityType")
        }
        do { try Identifier.checkActivityType(type) } catch {
            throw HandoffError(.malformedData, "activity payload: \(error.message)")
        }
        guard let userInfoPlist = d[Key.userInfo] else {
            throw HandoffError(.malformedData, "activity payload has no userInfo")
        }
        // Bounded: the whole payload is within maxPayloadSize's limits.
        let measured = BinaryPropertyList.canonicalSize(of: userInfoPlist, atMost: .max, nullStandsFor: UserInfoCoding.taggedNull)
        try UserInfoRules.checkBudget(measured ?? .max)

        var s = ActivityState()
        s.userInfo = try UserInfoCoding.measuredUserInfo(userInfoPlist)
        s.title = try r.string(Key.title)
        s.targetContentIdentifier = try r.string(Key.targetContentIdentifier)
        s.persistentIdentifier = try r.string(Key.persistentIdentifier)
        s.requiredUserInfoKeys = Set(try r.strings(Key.requiredUserInfoKeys))
        s.keywords = Set(try r.strings(Key.keywords))
        s.searchableUserInfoKeys = Set(try r.strings(Key.searchableUserInfoKeys))
        s.webpageURL = try r.webURL(Key.webpageURL)
        s.referrerURL = try r.webURL(Key.referrerURL)
        s.expirationDate = try r.date(Key.expirationDate)
        s.isEligibleForHandoff = try r.boolean(Key.eligibleForHandoff) ?? true
        s.isEligibleForSearch = try r.boolean(Key.eligibleForSearch) ?? false
        s.isEligibleForPublicIndexing = try r.boolean(Key.eligibleForPublicIndexing) ?? false
        s.isEligibleForPrediction = try r.boolean(Key.eligibleForPrediction) ?? false
        s.supportsContinuationStreams = try r.boolean(Key.supportsContinuationStreams) ?? false
        // What a sender refuses to send (4608), a receiver refuses to take:
        // an activity it accepts can be encoded again.
        let missing = s.requiredUserInfoKeys.filter { s.userInfo[$0] == nil }.sorted()
        if !missing.isEmpty {
            throw HandoffError(.malformedData,
                "activity payload requires userInfo key(s) it lacks: \(missing.prefix(3).map { Identifier.quoted($0) }.joined(separator: ", "))")
        }
        // As it would be written again: a URL is written back in its
        // absolute, percent-encoded form, which may be longer.
        let size = canonicalSize(s, id: id, type: type)
        guard size <= maxPayloadSize else {
            throw HandoffError(.malformedData,
                "activity payload would be \(size) bytes written canonically (URLs percent-encoded), over \(maxPayloadSize) (docs/PROTOCOL.md §3)")
        }
        return (UserActivity(activityType: type, activityID: id, state: s), d.filter { keys.contains($0.key) })
    }

    /// A payload the reader refused: 4611 when what was counted inside its
    /// userInfo alone is already over the budget, malformed otherwise.
    static func payloadError(_ error: PropertyListError) -> HandoffError {
        guard error.kind == .overLimit else {
            return HandoffError(.malformedData, "activity payload is not a valid binary property list: \(error.reason)")
        }
        if error.topLevelKey == Key.userInfo, let cost = error.topLevelCost,
           cost.minimumEncodedSize > UserInfoRules.payloadBudget {
            return UserInfoRules.overBudget(atLeast: cost.minimumEncodedSize)
        }
        return HandoffError(.malformedData,
            "activity payload would be more than \(maxPayloadSize) bytes written without shared objects (docs/PROTOCOL.md §3): \(error.reason)")
    }

    /// Typed access to payload fields; a field of the wrong type is malformed.
    struct Reader {
        let d: [String: PropertyListValue]
        init(_ d: [String: PropertyListValue]) { self.d = d }

        func wrongType(_ key: String, _ expected: String) -> HandoffError {
            HandoffError(.malformedData, "activity payload field \"\(key)\" is not \(expected)")
        }

        func string(_ key: String) throws(HandoffError) -> String? {
            switch d[key] {
            case nil: return nil
            case .string(let s)?: return s
            default: throw wrongType(key, "a string")
            }
        }

        func integer(_ key: String) throws(HandoffError) -> Int64? {
            switch d[key] {
            case nil: return nil
            case .integer(let i)?: return i
            default: throw wrongType(key, "an integer")
            }
        }

        func boolean(_ key: String) throws(HandoffError) -> Bool? {
            switch d[key] {
            case nil: return nil
            case .boolean(let b)?: return b
            default: throw wrongType(key, "a boolean")
            }
        }

        func date(_ key: String) throws(HandoffError) -> Timestamp? {
            switch d[key] {
            case nil: return nil
            case .date(let t)? where t.isFinite: return Timestamp(timeIntervalSinceReferenceDate: t)
            default: throw wrongType(key, "a finite date")
            }
        }

        func strings(_ key: String) throws(HandoffError) -> [String] {
            switch d[key] {
            case nil: return []
            case .array(let items)?:
                var out: [String] = []
                for item in items {
                    guard case .string(let s) = item else { throw wrongType(key, "an array of strings") }
                    out.append(s)
                }
                return out
            default: throw wrongType(key, "an array of strings")
            }
        }

        func webURL(_ key: String) throws(HandoffError) -> URLReference? {
            guard let s = try string(key) else { return nil }
            guard let url = URLReference(string: s) else { throw wrongType(key, "a URL") }
            do { try UserActivity.checkWebURL(url, property: key) } catch {
                throw HandoffError(.malformedData, "activity payload: \(error.message)")
            }
            return url
        }
    }
}
