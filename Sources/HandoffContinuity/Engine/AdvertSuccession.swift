// SPDX-License-Identifier: MIT OR Apache-2.0

/// One device's current advert and the activities it replaced (PROTOCOL §5
/// "Receiving", step 7), so that two senders claiming one device ID (a
/// copied configuration, an old release beside the agent) do not make a
/// receiver alternate between their activities at each keep-alive.
///
/// The rule: an advert of an activity the device has *replaced* (another
/// advert came after it, with no withdrawal in between) changes nothing
/// while the replacement is still heard, that is within `hold` seconds of
/// its latest advert. A sender that really changes what it offers sends a
/// new activity ID (always accepted) or first withdraws the current one,
/// so only a second sender's keep-alives, or late copies, are held back.
/// When the replacement is no longer heard (its sender crashed without a
/// withdrawal), the replaced activity is accepted again.
///
/// Raw activity IDs, before gating: what the device sends, not what one
/// audience is offered of it.
struct AdvertSuccession: Equatable {
    /// Two keep-alive intervals (`ContinuityConfiguration`'s 4 s): one lost
    /// keep-alive of the replacement does not let the replaced one back.
    static let hold = 8.0
    /// Replaced activities remembered per device.
    static let capacity = 4

    /// The activity of the latest accepted advert; nil after a withdrawal.
    private(set) var current: [UInt8]?
    /// Monotonic seconds of the latest accepted advert of `current`.
    private(set) var currentHeard = -Double.infinity
    /// The activities `current` replaced, most recent last.
    private(set) var replaced: [[UInt8]] = []

    /// Whether `beacon` is to be ignored: an advert of a replaced activity,
    /// or a withdrawal naming one, while the current advert is still heard.
    func isStale(_ beacon: Beacon, now: Double) -> Bool {
        guard let current, now - currentHeard <= Self.hold,
              let named = beacon.activity?.activityID, named != current else { return false }
        switch beacon.kind {
        case .advert, .withdraw: return replaced.contains(named)
        case .solicit, .presence: return false
        }
    }

    /// An advert was accepted.
    mutating func advertised(_ beacon: Beacon, now: Double) {
        guard let id = beacon.activity?.activityID else { return }
        if let current, current != id {
            replaced.removeAll { $0 == current }
            replaced.append(current)
            if replaced.count > Self.capacity { replaced.removeFirst(replaced.count - Self.capacity) }
        }
        replaced.removeAll { $0 == id }
        current = id
        currentHeard = now
    }

    /// A withdrawal was accepted (`named` nil: everything, or expiry): a
    /// withdrawn activity is neither current nor replaced any more.
    mutating func withdrawn(_ named: [UInt8]?) {
        guard let named else {
            current = nil
            return
        }
        replaced.removeAll { $0 == named }
        if named == current { current = nil }
    }
}
