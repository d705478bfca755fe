// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The `file:` URLs of a userInfo, wherever they sit (dictionaries, arrays
/// and sets alike), by the URL text the payload carries.
enum DocumentURLs {
    /// Every distinct `file:` URL text in `userInfo`.
    static func find(in userInfo: UserInfo) -> Set<String> {
        var found: Set<String> = []
        var stack = Array(userInfo.values)
        while let value = stack.popLast() {
            switch value {
            case .url(let url) where FileURL.isFileURL(url.absoluteString): found.insert(url.absoluteString)
            case .array(let items): stack += items
            case .set(let items): stack += items
            case .dictionary(let d): stack += d.values
            default: break
            }
        }
        return found
    }

    /// `userInfo` with each URL whose text is a key of `map` replaced by
    /// the URL of its value.
    static func replace(in userInfo: UserInfo, _ map: [String: URLReference]) -> UserInfo {
        userInfo.mapValues { replace($0, map) }
    }

    private static func replace(_ value: UserInfoValue, _ map: [String: URLReference]) -> UserInfoValue {
        switch value {
        case .url(let url): .url(map[url.absoluteString] ?? url)
        case .array(let items): .array(items.map { replace($0, map) })
        case .set(let items): .set(Set(items.map { replace($0, map) }))
        case .dictionary(let d): .dictionary(d.mapValues { replace($0, map) })
        default: value
        }
    }
}
