// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// What `handoff session` writes: one JSON object per line on stdout, each
/// of one key, the event (docs/cli.md "handoff session"). One write(2) per
/// line, so a reader never sees half of one. SIGPIPE is ignored by the
/// command: a reader gone is `isBroken`, and the session ends.
final class SessionOutput {
    private let fd: Int32
    private(set) var isBroken = false

    init(fd: Int32 = 1) { self.fd = fd }

    func send(_ event: String, _ body: JSON) {
        guard !isBroken else { return }
        let line = JSON.object([event: body]).text + "\n"
        var bytes = Array(line.utf8)[...]
        while !bytes.isEmpty {
            let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                isBroken = true
                return
            }
            bytes = bytes.dropFirst(n)
        }
    }

    /// `{"error": ERROR}`: ERROR as the tool's `{"code", "name", "message"}`,
    /// with the input line it is about when there is one.
    func error(_ error: HandoffError, line: Int? = nil) {
        guard case .object(var body) = Output.errorObject(error) else { return }
        if let line { body["line"] = .int(Int64(line)) }
        send("error", .object(body))
    }

    /// An activity another device offers, as `nearby` lists it.
    static func remote(_ r: RemoteActivity) -> JSON {
        [
            "id": .string(r.activityID.uuidString), "type": .string(r.activityType), "title": .string(r.title),
            "team": .string(r.teamIdentifier), "bundle": .string(r.bundleIdentifier),
            "webpage_url": .string(r.webpageURL?.absoluteString),
            "device": ["id": .string(r.deviceID), "name": .string(r.deviceName)],
        ]
    }

    /// A continued activity, as `continue --json` prints it; `device` null
    /// when the device it came from is no longer listed.
    static func continued(_ activity: UserActivity, from remote: RemoteActivity?) -> JSON {
        if let remote { return .object(ActivityPrinter.json(activity, remote: remote)) }
        var body = ActivityPrinter.json(activity, remote: RemoteActivity(deviceID: "", deviceName: "", activityID: activity.activityID,
                                                                         activityType: activity.activityType))
        body["device"] = .null
        return .object(body)
    }
}
