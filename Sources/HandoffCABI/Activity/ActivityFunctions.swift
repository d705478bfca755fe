// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffModel

// handoff_activity_*: see include/handoff.h, "User activities".

private func box(_ p: OpaquePointer?) throws(HandoffError) -> ActivityBox {
    try ActivityBox.argument(p)
}

/// Reads an optional string property as a borrowed pointer (NULL and
/// HANDOFF_E_NOT_FOUND when unset).
private func getString(_ p: OpaquePointer?, _ property: ActivityBox.Property, _ name: String,
                       _ read: (UserActivity) -> String?) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(p)
        guard let value = read(b.activity) else {
            throw HandoffError(.notFound, "the activity has no \(name)")
        }
        return b.pointer(property, value)
    }
}

/// Sets an optional string property from a C string (NULL clears).
private func setString(_ p: OpaquePointer?, _ value: UnsafePointer<CChar>?, _ name: String,
                       _ write: (UserActivity, String?) throws(HandoffError) -> Void) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let b = try box(p)
        try write(b.activity, try CArgument.optionalString(value, name))
    }
}

/// Parses a web URL argument; the model checks the scheme.
private func webURL(_ s: String?, _ name: String) throws(HandoffError) -> URLReference? {
    guard let s else { return nil }
    guard let url = URLReference(string: s) else {
        throw HandoffError(.invalidValue, "\(name) \"\(s)\" is not a URL; give an http or https URL")
    }
    return url
}

// MARK: Lifetime and identity

@c @implementation public func handoff_activity_new(_ type: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        Handle.retained(ActivityBox.handle(for: try UserActivity(activityType: try CArgument.string(type, "activity_type"))))
    }
}

@c @implementation public func handoff_activity_free(_ activity: OpaquePointer?) {
    Handle.release(activity, as: ActivityBox.self)
}

@c @implementation public func handoff_activity_ref(_ activity: OpaquePointer?) -> OpaquePointer? {
    guard let activity else { return nil }
    _ = Unmanaged<ActivityBox>.fromOpaque(UnsafeRawPointer(activity)).retain()
    return activity
}

@c @implementation public func handoff_activity_get_type(_ activity: OpaquePointer?) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(activity)
        return b.type.pointer(for: b.activity.activityType)
    }
}

@c @implementation public func handoff_activity_get_id(_ activity: OpaquePointer?) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(activity)
        return b.id.pointer(for: b.activity.activityID.uuidString)
    }
}

// MARK: String properties

@c @implementation public func handoff_activity_set_title(_ a: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setString(a, v, "title") { $0.title = $1 }
}

@c @implementation public func handoff_activity_get_title(_ a: OpaquePointer?) -> UnsafePointer<CChar>? {
    getString(a, .title, "title") { $0.title }
}

@c @implementation public func handoff_activity_set_webpage_url(_ a: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setString(a, v, "webpage_url") { (activity, s) throws(HandoffError) in
        try activity.setWebpageURL(try webURL(s, "webpage_url"))
    }
}

@c @implementation public func handoff_activity_get_webpage_url(_ a: OpaquePointer?) -> UnsafePointer<CChar>? {
    getString(a, .webpageURL, "webpage URL") { $0.webpageURL?.absoluteString }
}

@c @implementation public func handoff_activity_set_referrer_url(_ a: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setString(a, v, "referrer_url") { (activity, s) throws(HandoffError) in
        try activity.setReferrerURL(try webURL(s, "referrer_url"))
    }
}

@c @implementation public func handoff_activity_get_referrer_url(_ a: OpaquePointer?) -> UnsafePointer<CChar>? {
    getString(a, .referrerURL, "referrer URL") { $0.referrerURL?.absoluteString }
}

@c @implementation public func handoff_activity_set_target_content_identifier(_ a: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setString(a, v, "identifier") { $0.targetContentIdentifier = $1 }
}

@c @implementation public func handoff_activity_get_target_content_identifier(_ a: OpaquePointer?) -> UnsafePointer<CChar>? {
    getString(a, .targetContentIdentifier, "target content identifier") { $0.targetContentIdentifier }
}

@c @implementation public func handoff_activity_set_persistent_identifier(_ a: OpaquePointer?, _ v: UnsafePointer<CChar>?) -> Int32 {
    setString(a, v, "identifier") { $0.persistentIdentifier = $1 }
}

@c @implementation public func handoff_activity_get_persistent_identifier(_ a: OpaquePointer?) -> UnsafePointer<CChar>? {
    getString(a, .persistentIdentifier, "persistent identifier") { $0.persistentIdentifier }
}

// MARK: Expiration

@c @implementation public func handoff_activity_set_expiration_date(_ a: OpaquePointer?, _ unixSeconds: Double) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        try box(a).activity.setExpirationDate(Timestamp(timeIntervalSince1970: unixSeconds))
    }
}

@c @implementation public func handoff_activity_clear_expiration_date(_ a: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try box(a).activity.setExpirationDate(nil) }
}

@c @implementation public func handoff_activity_get_expiration_date(_ a: OpaquePointer?, _ out: UnsafeMutablePointer<Double>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let activity = try box(a).activity
        let out = try CArgument.out(out, "unix_seconds")
        guard let date = activity.expirationDate else {
            throw HandoffError(.notFound, "the activity has no expiration date")
        }
        out.pointee = date.timeIntervalSince1970
    }
}

// MARK: Flags

/// The Bool property each `handoff_activity_flag` names.
private func flag(_ f: handoff_activity_flag) throws(HandoffError) -> ReferenceWritableKeyPath<UserActivity, Bool> {
    switch f {
    case HANDOFF_ACTIVITY_ELIGIBLE_FOR_HANDOFF: return \.isEligibleForHandoff
    case HANDOFF_ACTIVITY_ELIGIBLE_FOR_SEARCH: return \.isEligibleForSearch
    case HANDOFF_ACTIVITY_ELIGIBLE_FOR_PUBLIC_INDEXING: return \.isEligibleForPublicIndexing
    case HANDOFF_ACTIVITY_ELIGIBLE_FOR_PREDICTION: return \.isEligibleForPrediction
    case HANDOFF_ACTIVITY_NEEDS_SAVE: return \.needsSave
    case HANDOFF_ACTIVITY_SUPPORTS_CONTINUATION_STREAMS: return \.supportsContinuationStreams
    default: throw HandoffError(.invalidArgument, "\(f.rawValue) is not a handoff_activity_flag")
    }
}

@c @implementation public func handoff_activity_set_flag(_ a: OpaquePointer?, _ f: handoff_activity_flag, _ value: Int32) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let activity = try box(a).activity
        activity[keyPath: try flag(f)] = value != 0
    }
}

@c @implementation public func handoff_activity_get_flag(_ a: OpaquePointer?, _ f: handoff_activity_flag, _ out: UnsafeMutablePointer<Int32>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let activity = try box(a).activity
        let path = try flag(f)
        try CArgument.out(out, "value").pointee = activity[keyPath: path] ? 1 : 0
    }
}

// MARK: String sets

private func sortedUTF8(_ s: Set<String>) -> [String] {
    s.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
}

/// A string-set property's three functions (set, count, at): the property's
/// slot for the borrowed strings and its place in the activity.
private struct StringSet {
    let property: ActivityBox.Property
    let path: ReferenceWritableKeyPath<UserActivity, Set<String>>
    /// The argument's name in errors.
    let name: String

    static var keywords: StringSet { StringSet(property: .keywords, path: \.keywords, name: "keywords") }
    static var required: StringSet { StringSet(property: .requiredUserInfoKeys, path: \.requiredUserInfoKeys, name: "keys") }
    static var searchable: StringSet { StringSet(property: .searchableUserInfoKeys, path: \.searchableUserInfoKeys, name: "keys") }

    func set(_ a: OpaquePointer?, _ values: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int) -> Int32 {
        Thunk.status { () throws(HandoffError) in
            let activity = try box(a).activity
            activity[keyPath: path] = Set(try CArgument.strings(values, count, name))
        }
    }

    func count(_ a: OpaquePointer?) -> Int {
        guard let a else { return 0 }
        return Handle.object(a, as: ActivityBox.self).activity[keyPath: path].count
    }

    func at(_ a: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
        Thunk.value { () throws(HandoffError) in
            let b = try box(a)
            return b.pointer(property, sortedUTF8(b.activity[keyPath: path]), at: index)
        }
    }
}

@c @implementation public func handoff_activity_set_keywords(_ a: OpaquePointer?, _ keywords: UnsafePointer<UnsafePointer<CChar>?>?,
                                             _ count: Int) -> Int32 {
    StringSet.keywords.set(a, keywords, count)
}

@c @implementation public func handoff_activity_keyword_count(_ a: OpaquePointer?) -> Int {
    StringSet.keywords.count(a)
}

@c @implementation public func handoff_activity_keyword_at(_ a: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    StringSet.keywords.at(a, index)
}

@c @implementation public func handoff_activity_set_required_user_info_keys(_ a: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                                            _ count: Int) -> Int32 {
    StringSet.required.set(a, keys, count)
}

@c @implementation public func handoff_activity_required_user_info_key_count(_ a: OpaquePointer?) -> Int {
    StringSet.required.count(a)
}

@c @implementation public func handoff_activity_required_user_info_key_at(_ a: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    StringSet.required.at(a, index)
}

@c @implementation public func handoff_activity_set_searchable_user_info_keys(_ a: OpaquePointer?, _ keys: UnsafePointer<UnsafePointer<CChar>?>?,
                                                              _ count: Int) -> Int32 {
    StringSet.searchable.set(a, keys, count)
}

@c @implementation public func handoff_activity_searchable_user_info_key_count(_ a: OpaquePointer?) -> Int {
    StringSet.searchable.count(a)
}

@c @implementation public func handoff_activity_searchable_user_info_key_at(_ a: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    StringSet.searchable.at(a, index)
}

// MARK: userInfo

/// The dictionary behind a `handoff_value *` argument (NULL is empty).
/// The dictionary, and whether it is known to keep the rules.
private func userInfoArgument(_ p: OpaquePointer?) throws(HandoffError) -> (UserInfo, checked: Bool) {
    guard let p else { return ([:], true) }
    let (v, checked) = Handle.object(p, as: ValueBox.self).checkedValue
    guard case .dictionary(let d) = v else {
        throw HandoffError(.typeMismatch, "userInfo must be a dictionary value, not \(v.kind.name)")
    }
    return (d, checked)
}

@c @implementation public func handoff_activity_copy_user_info(_ a: OpaquePointer?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        Handle.retained(ValueBox(.dictionary(try box(a).activity.userInfo), checked: true))
    }
}

@c @implementation public func handoff_activity_set_user_info(_ a: OpaquePointer?, _ dictionary: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let (userInfo, checked) = try userInfoArgument(dictionary)
        try box(a).activity.setUserInfo(userInfo, checked: checked)
    }
}

@c @implementation public func handoff_activity_add_user_info_entries(_ a: OpaquePointer?, _ dictionary: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let (entries, checked) = try userInfoArgument(dictionary)
        try box(a).activity.addUserInfoEntries(entries, checked: checked)
    }
}

@c @implementation public func handoff_activity_user_info_size(_ a: OpaquePointer?) -> Int {
    guard let a else { return 0 }
    return Handle.object(a, as: ActivityBox.self).activity.encodedUserInfoSize
}

// MARK: Encoding

@c @implementation public func handoff_activity_encode(_ a: OpaquePointer?, _ bytes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?,
                                       _ length: UnsafeMutablePointer<Int>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let activity = try box(a).activity
        let bytes = try CArgument.out(bytes, "bytes")
        let length = try CArgument.out(length, "length")
        CMemory.give(try ActivityCoding.encode(activity), to: bytes, length: length)
    }
}

@c @implementation public func handoff_activity_decode(_ bytes: UnsafeRawPointer?, _ length: Int) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        guard bytes != nil else { throw HandoffError(.invalidArgument, "bytes is NULL") }
        return Handle.retained(ActivityBox.handle(for: try ActivityCoding.decode(try CArgument.bytes(bytes, length, "bytes"))))
    }
}
