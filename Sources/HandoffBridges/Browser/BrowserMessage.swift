// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffModel

/// What the extension tells the host (docs/browser.md §3), validated: the
/// extension is input, not trust.
public enum BrowserRequest: Equatable {
    case hello(browser: String?, version: Int64?)
    /// This page is what the browser shows now.
    case current(page: URLReference, title: String?)
    case resign
    case status

    /// The longest page address offered, and the longest title (a beacon's).
    public static let maxURLBytes = 4096
    public static let maxTitleBytes = 256

    /// Why a message was refused: said back to the extension as `error`.
    public struct Refusal: Error, Equatable {
        public let reason: String
        /// The refused message's `type`, when it had one.
        public let about: String?
    }

    /// Decodes one message's bytes: JSON read by the library's bounded
    /// reader (`UserInfoJSON`, the one userInfo JSON goes through).
    public static func decode(_ bytes: [UInt8]) throws(Refusal) -> BrowserRequest {
        let json: UserInfoValue
        do {
            json = try UserInfoJSON.decode(bytes)
        } catch {
            throw Refusal(reason: "the message is not JSON (\(error.message))", about: nil)
        }
        guard case .dictionary(let message) = json else { throw Refusal(reason: "a message is a JSON object", about: nil) }
        guard case .string(let type)? = message["type"] else { throw Refusal(reason: "a message needs a string \"type\"", about: nil) }
        func refuse(_ reason: String) -> Refusal { Refusal(reason: reason, about: String(decoding: type.utf8.prefix(64), as: UTF8.self)) }
        switch type {
        case "hello":
            var browser: String?
            if case .string(let b)? = message["browser"] { browser = String(decoding: b.utf8.prefix(64), as: UTF8.self) }
            var version: Int64?
            if case .integer(let v)? = message["version"] { version = v }
            return .hello(browser: browser, version: version)
        case "current":
            guard case .string(let text)? = message["url"] else { throw refuse("\"current\" needs a string \"url\"") }
            guard text.utf8.count <= maxURLBytes else { throw refuse("the page's address is over \(maxURLBytes) bytes") }
            guard let url = URLReference(string: text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host?.isEmpty == false else {
                throw refuse("only http and https pages are offered")
            }
            guard !url.hasCredentials else { throw refuse("a page whose address holds a user name or password is not offered") }
            var title: String?
            switch message["title"] {
            case .string(let t)?: title = cut(t)
            case .null?, nil: title = nil
            default: throw refuse("\"title\" is a string")
            }
            return .current(page: url, title: title?.isEmpty == false ? title : nil)
        case "resign":
            return .resign
        case "status":
            return .status
        default:
            throw refuse("unknown type")
        }
    }

    /// `title` without control characters, at most `maxTitleBytes` bytes,
    /// cut between characters.
    static func cut(_ title: String) -> String {
        var out = ""
        var bytes = 0
        for character in title {
            if character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { continue }
            let size = character.utf8.count
            guard bytes + size <= maxTitleBytes else { break }
            out.append(character)
            bytes += size
        }
        return out
    }
}

/// What the host tells the extension.
public enum BrowserReply: Equatable {
    case status(agent: Bool, devices: [String], reason: String?)
    case open(page: URLReference, from: String)
    case error(String, about: String?)

    public var json: JSON {
        switch self {
        case .status(let agent, let devices, let reason):
            var o: JSONObject = ["type": .string("status"), "agent": .bool(agent), "devices": .array(devices.map { .string($0) })]
            if let reason { o["reason"] = .string(reason) }
            return .object(o)
        case .open(let page, let from):
            return .object(["type": .string("open"), "url": .string(page.absoluteString), "from": .string(from)])
        case .error(let text, let about):
            var o: JSONObject = ["type": .string("error"), "error": .string(text)]
            if let about { o["about"] = .string(about) }
            return .object(o)
        }
    }

    /// Its frame; nil only if it could not be sent (over 1 MiB).
    public var frame: [UInt8]? { NativeMessageDecoder.frame(json.text) }
}
