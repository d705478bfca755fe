// SPDX-License-Identifier: MIT OR Apache-2.0
/// What a userInfo costs written as `UserInfoCoding.encode` writes it (null,
/// set and URL as their tagged dictionaries, docs/PROTOCOL.md §2), computed
/// without building or sorting anything: a set's cost does not depend on the
/// order of its members. `canonicalCost(of: u).encodedSize` is
/// `encode(u).count`, the size the budget is defined on.
///
/// The walk recurses once per nested container; the values measured come
/// from the reader (at most 64 levels) or passed `UserInfoRules` (16).
extension UserInfoCoding {
    public static func canonicalCost(of userInfo: UserInfo) -> CanonicalCost {
        var cost = CanonicalCost()
        add(dictionary: userInfo, to: &cost)
        return cost
    }

    public static func canonicalCost(of value: UserInfoValue) -> CanonicalCost {
        var cost = CanonicalCost()
        add(value, to: &cost)
        return cost
    }

    private static func add(_ value: UserInfoValue, to cost: inout CanonicalCost) {
        switch value {
        case .array(let items):
            cost.objects += 1
            cost.bytes += BinaryPropertyList.markerSize(count: items.count)
            for item in items { add(item, to: &cost) }
        case .dictionary(let dictionary):
            add(dictionary: dictionary, to: &cost)
        case .set(let members):
            // The tagged dictionary with an empty members array, then the
            // array's real count and its members.
            add(plist: .dictionary([UserInfoRules.classKey: .string(setClass), setMembersKey: .array([])]), to: &cost)
            cost.bytes += BinaryPropertyList.markerSize(count: members.count) - BinaryPropertyList.markerSize(count: 0)
            for member in members { add(member, to: &cost) }
        case .data(let bytes):
            cost.objects += 1
            cost.bytes += BinaryPropertyList.markerSize(count: bytes.count) + bytes.count
        case .string(let string):
            cost.objects += 1
            cost.bytes += BinaryPropertyList.stringSize(string)
        case .null, .boolean, .integer, .real, .date, .url:
            // Small: a scalar, or a tagged dictionary of two or three strings.
            add(plist: propertyList(value), to: &cost)
        }
    }

    private static func add(dictionary: UserInfo, to cost: inout CanonicalCost) {
        cost.objects += 1 + dictionary.count
        cost.bytes += BinaryPropertyList.markerSize(count: dictionary.count)
        for (key, item) in dictionary {
            cost.bytes += BinaryPropertyList.stringSize(key)
            add(item, to: &cost)
        }
    }

    private static func add(plist: PropertyListValue, to cost: inout CanonicalCost) {
        let measured = BinaryPropertyList.measure(plist, null: nil, atMost: .max)!.cost
        cost.objects += measured.objects
        cost.bytes += measured.bytes
    }
}
