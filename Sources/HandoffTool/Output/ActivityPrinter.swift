// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffModel
import HandoffRuntime

/// A continued activity, as `continue` prints it.
enum ActivityPrinter {
    static func json(_ activity: UserActivity, remote: RemoteActivity) -> JSONObject {
        let s = activity.snapshot
        return [
            "id": .string(activity.activityID.uuidString),
            "type": .string(activity.activityType),
            "title": .string(s.title),
            "webpage_url": .string(s.webpageURL?.absoluteString),
            "user_info": .encoded(String(decoding: UserInfoJSON.encodeTagged(.dictionary(s.userInfo)), as: UTF8.self)),
            "web_only": .bool(false),
            "device": ["id": .string(remote.deviceID), "name": .string(remote.deviceName)],
        ]
    }

    static func text(_ activity: UserActivity, remote: RemoteActivity) -> String {
        let s = activity.snapshot
        var lines = [
            "type       \(activity.activityType)",
            "title      \(s.title ?? "(none)")",
            "webpage    \(s.webpageURL?.absoluteString ?? "(none)")",
            "id         \(activity.activityID.uuidString)",
            "from       \(remote.deviceName)",
            s.userInfo.isEmpty ? "userInfo   (empty)" : "userInfo",
        ]
        // One line per entry, for people: `key = value`, the value as JSON.
        lines += s.userInfo.keys.sorted().map { "  \($0) = \(String(decoding: UserInfoJSON.encodeTagged(s.userInfo[$0]!), as: UTF8.self))" }
        return lines.joined(separator: "\n")
    }

    static func webJSON(_ url: URLReference, remote: RemoteActivity) -> JSONObject {
        [
            "id": .string(remote.activityID.uuidString),
            "type": .string(remote.activityType),
            "title": .string(remote.title),
            "webpage_url": .string(url.absoluteString),
            "user_info": .null,
            "web_only": .bool(true),
            "device": ["id": .string(remote.deviceID), "name": .string(remote.deviceName)],
        ]
    }
}
