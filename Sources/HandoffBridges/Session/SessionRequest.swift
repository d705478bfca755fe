// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One line a script writes to `handoff session` (docs/cli.md "handoff
/// session"): a JSON object of one key, the verb, whose value is an
/// object. Read by the library's bounded JSON reader (`UserInfoJSON`),
/// `user_info` in the tagged form the command's output writes. Keys a
/// verb does not know are ignored, so later releases can add some.
public enum SessionRequest: Equatable {
    /// Make this the app's current activity (a new one when `type`
    /// differs from the current one's, else the current one updated).
    case publish(SessionPublication)
    /// Withdraw the current activity.
    case withdraw
    /// The person chose, in the script's app, to continue this activity
    /// that another device offers (one of `offered`).
    case `continue`(ActivityID)

    /// Decodes one line; throws what is wrong with it, with a message
    /// naming it: `.malformedData` for text that is not such an object,
    /// `.typeMismatch` for a value of the wrong kind, `.invalidValue` for
    /// an unknown verb or a value refused.
    public static func decode(_ line: [UInt8]) throws(HandoffError) -> SessionRequest {
        guard case .dictionary(let message) = try UserInfoJSON.decode(line) else {
            throw HandoffError(.malformedData, "a line is one JSON object, such as {\"withdraw\": {}}")
        }
        guard message.count == 1, let (verb, value) = message.first else {
            throw HandoffError(.malformedData, "a line is an object of one key, the verb (publish, withdraw, continue); this one has \(message.count)")
        }
        guard case .dictionary(let body) = value else {
            throw HandoffError(.typeMismatch, "\"\(cut(verb))\" takes an object")
        }
        switch verb {
        case "publish":
            return .publish(try SessionPublication(body))
        case "withdraw":
            return .withdraw
        case "continue":
            guard case .string(let text)? = body["id"], let id = ActivityID(uuidString: text) else {
                throw HandoffError(.invalidValue, "\"continue\" needs \"id\", an activity id as \"offered\" lists it")
            }
            return .continue(id)
        default:
            throw HandoffError(.invalidValue, "unknown verb \"\(cut(verb))\" (publish, withdraw, continue)")
        }
    }

    /// A name from the input, short enough to quote back.
    static func cut(_ text: String) -> String {
        text.utf8.count <= 64 ? text : String(decoding: text.utf8.prefix(64), as: UTF8.self) + "…"
    }
}

/// What `publish` says: the whole state of the app's current activity.
public struct SessionPublication: Equatable {
    /// nil: the session's one declared type (an error when it has several).
    public var type: String?
    public var title: String?
    public var userInfo: UserInfo
    public var webpageURL: URLReference?

    public init(type: String? = nil, title: String? = nil, userInfo: UserInfo = [:], webpageURL: URLReference? = nil) {
        self.type = type
        self.title = title
        self.userInfo = userInfo
        self.webpageURL = webpageURL
    }

    init(_ body: [String: UserInfoValue]) throws(HandoffError) {
        self.init()
        switch body["type"] {
        case .string(let text)?: type = text
        case .null?, nil: type = nil
        default: throw HandoffError(.typeMismatch, "\"type\" is a string")
        }
        switch body["title"] {
        case .string(let text)?: title = text
        case .null?, nil: title = nil
        default: throw HandoffError(.typeMismatch, "\"title\" is a string")
        }
        switch body["user_info"] {
        case .dictionary?:
            guard case .dictionary(let info) = try UserInfoJSON.untagged(body["user_info"]!) else {
                throw HandoffError(.typeMismatch, "\"user_info\" is an object")  // a one-key tag, such as {"$url": …}
            }
            userInfo = info
        case .null?, nil: userInfo = [:]
        default: throw HandoffError(.typeMismatch, "\"user_info\" is an object")
        }
        switch body["webpage_url"] {
        case .string(let text)?:
            guard let url = URLReference(string: text) else { throw HandoffError(.invalidValue, "\"webpage_url\" is not a URL") }
            webpageURL = url
        case .null?, nil: webpageURL = nil
        default: throw HandoffError(.typeMismatch, "\"webpage_url\" is a string")
        }
    }
}
