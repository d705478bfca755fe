// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// One saved activity, as the history holds it (docs/history.md).
public struct HistoryEntry: Sendable, Equatable {
    /// Its number in the index: result ids are "h" and this.
    public var id: Int64
    public var deviceID: [UInt8]
    public var deviceName: String
    public var activityID: ActivityID
    public var bundle: String
    public var team: String
    public var activityType: String
    public var persistentIdentifier: String?
    public var title: String
    public var keywords: [String]
    /// The searchable userInfo strings.
    public var content: [String]
    public var url: String?
    /// Milliseconds since the Unix epoch.
    public var firstSeen: Int64
    public var lastSeen: Int64
    /// The payload's size in bytes (the payload itself: `HistoryStore.payload`).
    public var payloadSize: Int

    /// The id the desktop's search providers use.
    public var resultID: String { "h\(id)" }

    /// The entry a result id names, if it is one: "h" and the number as
    /// `resultID` writes it, nothing else — no leading zero ("h05" is not
    /// "h5"), no sign, no space, at least 1. One entry has one spelling,
    /// so an id a list or a desktop result showed names that entry or
    /// none (ids are never reused, docs/history.md "The database").
    public static func number(ofResult id: String) -> Int64? {
        let bytes = Array(id.utf8)
        guard bytes.count >= 2, bytes.count <= 20, bytes[0] == UInt8(ascii: "h"),
              bytes[1] != UInt8(ascii: "0"),
              bytes.dropFirst().allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int64(String(decoding: bytes.dropFirst(), as: UTF8.self))
    }
}

/// What the history writes for one activity: read from its payload.
public struct HistoryRecord: Sendable, Equatable {
    public var deviceID: [UInt8]
    public var deviceName: String
    public var bundle: String
    public var team: String
    public var activityID: ActivityID
    public var activityType: String
    public var persistentIdentifier: String?
    public var text: SearchableText
    public var url: String?
    /// When it was seen (ms since the Unix epoch).
    public var seen: Int64
    public var payload: [UInt8]

    /// The record of `payload`, or why it is not indexed: a payload that
    /// does not decode, is not eligible for search, or names another
    /// activity than `activityID` (when given).
    public static func make(payload: [UInt8], activityID: ActivityID?, deviceID: [UInt8], deviceName: String,
                            bundle: String, team: String, seen: Int64) -> Result<HistoryRecord, HandoffError> {
        let activity: UserActivity
        do { activity = try ActivityCoding.decode(payload) } catch { return .failure(error) }
        if let activityID, activity.activityID != activityID {
            return .failure(HandoffError(.malformedData, "the payload is of activity \(activity.activityID), not \(activityID)"))
        }
        let s = activity.snapshot
        guard s.isEligibleForSearch else {
            return .failure(HandoffError(.invalidState, "the activity is not eligible for search"))
        }
        return .success(HistoryRecord(deviceID: deviceID, deviceName: deviceName, bundle: bundle, team: team,
                                      activityID: activity.activityID, activityType: activity.activityType,
                                      persistentIdentifier: s.persistentIdentifier.flatMap { $0.isEmpty ? nil : $0 },
                                      text: SearchableText(s), url: s.webpageURL?.absoluteString, seen: seen, payload: payload))
    }
}
