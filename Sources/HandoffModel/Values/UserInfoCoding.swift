// SPDX-License-Identifier: MIT OR Apache-2.0

/// Maps userInfo values to property-list values and back.
///
/// Property lists have no set and no URL, and null exists only as a binary
/// token that Apple's CoreFoundation and the XML form do not support
/// (CPython's plistlib reads and writes it in binary only). So those three
/// are written as dictionaries tagged with a `$class` key, as Apple's keyed
/// archives tag objects by class, which every plist reader can carry:
///
///     null -> { "$class": "NSNull" }
///     set  -> { "$class": "NSSet", "NS.objects": [ ...members ] }
///     URL  -> { "$class": "NSURL", "NS.relative": "https://..." }
///
/// Every other value is the plain plist value. Decoding also accepts the
/// binary null token. docs/PROTOCOL.md is the normative description.
public enum UserInfoCoding {
    static let nullClass = "NSNull"
    static let setClass = "NSSet"
    static let urlClass = "NSURL"
    static let setMembersKey = "NS.objects"
    static let urlStringKey = "NS.relative"

    // MARK: To property list

    public static func propertyList(_ userInfo: UserInfo) -> PropertyListValue {
        .dictionary(userInfo.mapValues(propertyList))
    }

    /// What null is written as; readers measure a binary null token as this
    /// (`DecodingLimits.nullStandsFor`), since this is what it re-encodes to.
    /// (Computed, not stored: a stored enum keeps its box pointer with tag
    /// bits set, which valgrind cannot see as a reference and calls lost.)
    public static var taggedNull: PropertyListValue { .dictionary([UserInfoRules.classKey: .string(nullClass)]) }

    public static func propertyList(_ value: UserInfoValue) -> PropertyListValue {
        switch value {
        case .null: return taggedNull
        case .boolean(let b): return .boolean(b)
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .string(let s): return .string(s)
        case .data(let d): return .data(d)
        case .date(let d): return .date(d.timeIntervalSinceReferenceDate)
        case .url(let u):
            return .dictionary([UserInfoRules.classKey: .string(urlClass), urlStringKey: .string(u.absoluteString)])
        case .array(let items): return .array(items.map(propertyList))
        case .dictionary(let dict): return .dictionary(dict.mapValues(propertyList))
        case .set(let members):
            // Sorted by encoding so that equal sets encode to equal bytes.
            let encoded = members.map(propertyList).sorted {
                BinaryPropertyList.encode($0).lexicographicallyPrecedes(BinaryPropertyList.encode($1))
            }
            return .dictionary([UserInfoRules.classKey: .string(setClass), setMembersKey: .array(encoded)])
        }
    }

    // MARK: From property list

    /// Reads a userInfo dictionary; throws `.malformedData` for anything a
    /// userInfo cannot be, then applies `UserInfoRules`.
    public static func userInfo(_ plist: PropertyListValue) throws(HandoffError) -> UserInfo {
        guard case .dictionary(let dict) = plist else {
            throw HandoffError(.malformedData, "userInfo is not a dictionary")
        }
        if dict[UserInfoRules.classKey] != nil {
            throw HandoffError(.malformedData, "userInfo itself is a tagged \(UserInfoRules.classKey) object, not a dictionary")
        }
        var result = UserInfo(minimumCapacity: dict.count)
        for (key, item) in dict {
            result[key] = try value(item)
        }
        do {
            try UserInfoRules.check(result)
        } catch {
            throw HandoffError(.malformedData, "decoded userInfo breaks a rule: \(error.message)")
        }
        return result
    }

    public static func value(_ plist: PropertyListValue) throws(HandoffError) -> UserInfoValue {
        switch plist {
        case .null: return .null
        case .boolean(let b): return .boolean(b)
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .string(let s): return .string(s)
        case .data(let bytes): return .data(bytes)
        case .date(let t):
            guard t.isFinite else { throw HandoffError(.malformedData, "date is not finite") }
            return .date(Timestamp(timeIntervalSinceReferenceDate: t))
        case .array(let items):
            var out: [UserInfoValue] = []
            out.reserveCapacity(items.count)
            for item in items { out.append(try value(item)) }
            return .array(out)
        case .dictionary(let dict):
            guard let tag = dict[UserInfoRules.classKey] else {
                var out = UserInfo(minimumCapacity: dict.count)
                for (key, item) in dict { out[key] = try value(item) }
                return .dictionary(out)
            }
            return try tagged(tag, dict)
        }
    }

    private static func tagged(_ tag: PropertyListValue, _ dict: [String: PropertyListValue]) throws(HandoffError) -> UserInfoValue {
        guard case .string(let cls) = tag else {
            throw HandoffError(.malformedData, "\(UserInfoRules.classKey) is not a string")
        }
        switch cls {
        case nullClass where dict.count == 1:
            return .null
        case urlClass where dict.count == 2:
            guard case .string(let s)? = dict[urlStringKey], let url = URLReference(string: s), url.scheme != nil else {
                throw HandoffError(.malformedData, "NSURL object has no valid absolute \(urlStringKey) string")
            }
            return .url(url)
        case setClass where dict.count == 2:
            guard case .array(let items)? = dict[setMembersKey] else {
                throw HandoffError(.malformedData, "NSSet object has no \(setMembersKey) array")
            }
            var members = Set<UserInfoValue>(minimumCapacity: items.count)
            for item in items { members.insert(try value(item)) }
            return .set(members)
        default:
            throw HandoffError(.malformedData, "unknown or malformed tagged object \(Identifier.quoted(cls))")
        }
    }

    // MARK: Bytes

    /// The userInfo as a binary property list, written canonically (no
    /// object shared): its size is what the 3072-byte budget counts.
    public static func encode(_ userInfo: UserInfo) -> [UInt8] {
        BinaryPropertyList.encode(propertyList(userInfo))
    }

    /// Limits for reading userInfo values: those `DecodingLimits.canonicalSize`
    /// derives from `size`, a null token measured as the tagged dictionary it
    /// is written as.
    public static func decodingLimits(canonicalSizeAtMost size: Int) -> DecodingLimits {
        .canonicalSize(atMost: size, nullStandsFor: taggedNull)
    }

    /// Decodes a userInfo that must fit the budget.
    /// - Throws: `.userInfoTooLarge` (4611) when its canonical encoding is
    ///   over `UserInfoRules.payloadBudget` bytes, found while reading and
    ///   before anything is expanded; `.malformedData` otherwise.
    public static func decode(_ bytes: [UInt8]) throws(HandoffError) -> UserInfo {
        let limits = decodingLimits(canonicalSizeAtMost: UserInfoRules.payloadBudget)
        let decoded: (value: PropertyListValue, cost: CanonicalCost)
        do {
            decoded = try BinaryPropertyList.decodeMeasured(bytes, limits: limits)
        } catch where error.kind == .overLimit {
            throw UserInfoRules.overBudget(atLeast: UserInfoRules.payloadBudget + 1)
        } catch {
            throw HandoffError(.malformedData, "not a valid binary property list: \(error.reason)")
        }
        try UserInfoRules.checkBudget(decoded.cost.encodedSize)
        return try measuredUserInfo(decoded.value)
    }

    /// `userInfo(plist)` for a plist already measured within the budget as
    /// read, then measured again as it will be written: a URL string is
    /// written back in its absolute, percent-encoded form, which may be
    /// longer (docs/PROTOCOL.md §2). So a userInfo a receiver accepts
    /// always encodes within the budget.
    static func measuredUserInfo(_ plist: PropertyListValue) throws(HandoffError) -> UserInfo {
        let result = try userInfo(plist)
        try UserInfoRules.checkBudget(canonicalCost(of: result).encodedSize)
        return result
    }

    /// Decodes one userInfo value (`handoff_value_decode`), bounded by
    /// `limits` as read and again as it will be written (a null token and a
    /// URL string may grow), so any value it gives encodes to bytes it
    /// decodes again. Null tokens are measured as written.
    public static func decodeValue(_ bytes: [UInt8], limits: DecodingLimits = .default) throws(HandoffError) -> UserInfoValue {
        var limits = limits
        limits.nullStandsFor = taggedNull
        let decoded = try value(decodePropertyList(bytes, limits: limits))
        let written = canonicalCost(of: decoded)
        guard written.objects <= limits.maxObjects, written.bytes <= limits.maxBytes else {
            throw HandoffError(.malformedData,
                "value would be \(written.objects) values and \(written.bytes) bytes once written (URLs percent-encoded), over the \(limits.maxObjects) values and \(limits.maxBytes) bytes allowed")
        }
        return decoded
    }

    /// Decodes bytes as a property list, mapping the codec's error. The
    /// default limits bound the value to 2^20 values and 16 MiB however its
    /// objects are shared.
    public static func decodePropertyList(_ bytes: [UInt8], limits: DecodingLimits = .default) throws(HandoffError) -> PropertyListValue {
        do {
            return try BinaryPropertyList.decode(bytes, limits: limits)
        } catch where error.kind == .overLimit {
            throw HandoffError(.malformedData, "property list is too large once shared objects are expanded: \(error.reason)")
        } catch {
            throw HandoffError(.malformedData, "not a valid binary property list: \(error.reason)")
        }
    }
}
