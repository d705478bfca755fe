// SPDX-License-Identifier: MIT OR Apache-2.0

/// A value in an activity's `userInfo`: exactly the types Handoff carries
/// (Apple: array, data, date, dictionary, null, number, set, string, URLReference).
///
/// Numbers keep their kind: integer, real and boolean are distinct, as they
/// are in a property list.
///
/// Not `indirect` as a whole (containers hold their children in their own
/// storage already): a scalar is stored in place rather than in a heap box
/// of its own, which halves the allocations of reading and freeing a tree.
/// Only the URL, the one large payload, is boxed, keeping the value small.
public enum UserInfoValue: Sendable, Hashable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case data([UInt8])
    case date(Timestamp)
    indirect case url(URLReference)
    case array([UserInfoValue])
    case dictionary([String: UserInfoValue])
    case set(Set<UserInfoValue>)

    /// The kind of the value, without its payload.
    public var kind: Kind {
        switch self {
        case .null: .null
        case .boolean: .boolean
        case .integer: .integer
        case .real: .real
        case .string: .string
        case .data: .data
        case .date: .date
        case .url: .url
        case .array: .array
        case .dictionary: .dictionary
        case .set: .set
        }
    }

    /// Value kinds; the raw values are the C ABI's `handoff_value_kind`.
    public enum Kind: Int32, Sendable, CaseIterable {
        case null = 0, boolean, integer, real, string, data, date, url, array, dictionary, set

        public var name: String {
            switch self {
            case .null: "null"
            case .boolean: "boolean"
            case .integer: "integer"
            case .real: "real"
            case .string: "string"
            case .data: "data"
            case .date: "date"
            case .url: "URL"
            case .array: "array"
            case .dictionary: "dictionary"
            case .set: "set"
            }
        }
    }
}

/// The dictionary type of `userInfo`.
public typealias UserInfo = [String: UserInfoValue]
