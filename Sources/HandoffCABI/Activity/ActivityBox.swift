// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The object behind a `handoff_activity *`: the shared `UserActivity` plus
/// the C strings borrowed from it, one slot per property, so a pointer stays
/// valid until that property is set again.
final class ActivityBox: @unchecked Sendable {
    // @unchecked: the slots are only touched under `slots`' lock.
    let activity: UserActivity
    let type: CStringSlot
    let id: CStringSlot
    private let slots = Locked<[Property: CStringSlot]>([:])
    private let lists = Locked<[Property: CStringListSlot]>([:])

    enum Property: Hashable {
        case title, webpageURL, referrerURL, targetContentIdentifier, persistentIdentifier
        case keywords, requiredUserInfoKeys, searchableUserInfoKeys
    }

    /// The one box for an activity while any box for it lives: a host sees
    /// the same `handoff_activity *` in callbacks as the one it created.
    static func handle(for activity: UserActivity) -> ActivityBox {
        activity.bindingHandle { ActivityBox(activity) }
    }

    /// The box behind a host's `handoff_activity *` argument.
    static func argument(_ p: OpaquePointer?) throws(HandoffError) -> ActivityBox {
        Handle.object(try CArgument.handle(p, "activity"))
    }

    private init(_ activity: UserActivity) {
        self.activity = activity
        type = CStringSlot()
        id = CStringSlot()
        _ = type.pointer(for: activity.activityType)
        _ = id.pointer(for: activity.activityID.uuidString)
    }

    /// The borrowed C string for a property's current value.
    func pointer(_ property: Property, _ value: String) -> UnsafePointer<CChar> {
        slots.withLock { slots in
            let slot = slots[property] ?? CStringSlot()
            slots[property] = slot
            return slot.pointer(for: value)
        }
    }

    /// The borrowed C string at `index` of a sorted string-set property.
    func pointer(_ property: Property, _ values: [String], at index: Int) -> UnsafePointer<CChar>? {
        lists.withLock { lists in
            let slot = lists[property] ?? CStringListSlot()
            lists[property] = slot
            return slot.pointer(for: values, at: index)
        }
    }
}
