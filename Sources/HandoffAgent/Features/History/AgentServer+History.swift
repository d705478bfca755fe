// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffContinuity
import HandoffModel
import HandoffRuntime

extension AgentServer {
    /// Continues history entry `id` as a handoff from the past
    /// (docs/history.md "Continuing a result"): still offered live by its
    /// device, it is chosen as CHOOSE chooses (fetched fresh); otherwise
    /// the remote activity is built from the entry and chosen the same
    /// way, and the app's FETCH is answered from the saved payload.
    /// Loop thread.
    /// - Returns: what was done; 4609 when there is no history or the
    ///   entry is gone; what `choose` fails with otherwise.
    public func continueHistoryEntry(_ id: Int64, activationToken: String?) -> Result<ContinueChoice, HandoffError> {
        guard let history else {
            return .failure(HandoffError(.connectionUnavailable, "this agent keeps no history"))
        }
        guard let entry = history.entries([id]).first, let payload = history.payload(of: id) else {
            return .failure(HandoffError(.connectionUnavailable, "entry \(id) is no longer in the history"))
        }
        let device = Self.hex(entry.deviceID)
        if let live = hub.availableNow.first(where: { $0.activityID == entry.activityID && $0.deviceID == device }) {
            log("history-continue", "entry \(id) is offered now by \(live.deviceName): continued fresh",
                ["activity": .string(entry.activityID.uuidString)])
            return routing.choose(remote: live, activationToken: activationToken)
        }
        let remote = RemoteActivity(deviceID: device, deviceName: entry.deviceName, activityID: entry.activityID,
                                    activityType: entry.activityType, title: entry.title.isEmpty ? nil : entry.title,
                                    webpageURL: entry.url.flatMap { URLReference(string: $0) },
                                    firstSeen: Timestamp(timeIntervalSince1970: Double(entry.firstSeen) / 1000),
                                    teamIdentifier: entry.team, bundleIdentifier: entry.bundle)
        savedContinuations.add(remote.activityID, payload: payload)
        let result = routing.choose(remote: remote, activationToken: activationToken)
        switch result {
        case .success:
            log("history-continue", "entry \(id) (\(entry.activityType) of \(entry.bundle), from \(entry.deviceName)) continued from its saved payload",
                ["activity": .string(entry.activityID.uuidString), "bundle": .string(entry.bundle)])
        case .failure:
            savedContinuations.remove(remote.activityID)
        }
        return result
    }

    /// `continueHistoryEntry` from outside the loop.
    public func continueHistoryEntry(_ id: Int64, activationToken: String?,
                                     completion: @escaping @Sendable (Result<ContinueChoice, HandoffError>) -> Void) {
        loop.post { [self] in completion(self.continueHistoryEntry(id, activationToken: activationToken)) }
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }
}

/// The saved payloads of history entries being continued: the app that
/// continues one FETCHes it from here, not from a device (its own, or one
/// that no longer offers it). Bounded: at most `capacity`, each kept for
/// `lifetime` seconds (a launched app's time to connect and fetch).
/// Loop thread.
struct SavedContinuations {
    static let capacity = 16
    static let lifetime = 120.0

    private var items: [ActivityID: (payload: [UInt8], expires: Double)] = [:]

    mutating func add(_ id: ActivityID, payload: [UInt8], now: Double = monotonicSeconds()) {
        expire(now)
        if items.count >= Self.capacity, items[id] == nil,
           let oldest = items.min(by: { $0.value.expires < $1.value.expires })?.key {
            items[oldest] = nil
        }
        items[id] = (payload, now + Self.lifetime)
    }

    mutating func remove(_ id: ActivityID) { items[id] = nil }

    /// The payload saved for `id`, while it is kept.
    mutating func payload(for id: ActivityID, now: Double = monotonicSeconds()) -> [UInt8]? {
        expire(now)
        return items[id]?.payload
    }

    private mutating func expire(_ now: Double) {
        items = items.filter { $0.value.expires > now }
    }
}
