// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import Testing
@testable import HandoffModel

// Shared-reference bombs: a few kilobytes whose containers reference the
// same objects again and again, standing for gigabytes once expanded. Every
// decoder must refuse them while reading, with work proportional to the
// input: the tests count the reader's steps, never time.

/// A bplist00 file from raw objects; references are 2 bytes, offsets 4.
private func bplist(_ objects: [[UInt8]], top: Int = 0) -> [UInt8] {
    var out = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
        offsets.append(out.count)
        out += object
    }
    let table = out.count
    for offset in offsets { out += be(offset, 4) }
    out += [0, 0, 0, 0, 0, 0, 4, 2]
    out += be(objects.count, 8) + be(top, 8) + be(table, 8)
    return out
}

private func be(_ value: Int, _ size: Int) -> [UInt8] {
    (0 ..< size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}

private func marker(_ high: UInt8, _ count: Int) -> [UInt8] {
    count < 15 ? [high | UInt8(count)] : [high | 0x0F, 0x11] + be(count, 2)
}

private func array(_ refs: [Int]) -> [UInt8] { marker(0xA0, refs.count) + refs.flatMap { be($0, 2) } }
private func dictionary(_ keys: [Int], _ values: [Int]) -> [UInt8] {
    marker(0xD0, keys.count) + keys.flatMap { be($0, 2) } + values.flatMap { be($0, 2) }
}
private func ascii(_ text: String) -> [UInt8] { marker(0x50, text.utf8.count) + Array(text.utf8) }
private func data(_ count: Int) -> [UInt8] { marker(0x40, count) + [UInt8](repeating: 0x5A, count: count) }

/// An activity payload's fields around a userInfo: objects 0 ... 8 are the
/// payload dictionary, its keys and its scalar values; the userInfo is object 9.
private func payload(userInfo: [[UInt8]], extra: (key: String, objects: [[UInt8]])? = nil) -> [UInt8] {
    var keys = ["activityID", "activityType", "userInfo", "version"]
    if let extra { keys.append(extra.key) }
    let n = keys.count
    // 0: dict, 1..n: keys, then values: id, type, userInfo (later), version, extra.
    var objects: [[UInt8]] = [[]]
    objects += keys.map(ascii)
    let id = objects.count
    objects.append(ascii("0F8FAD5B-D9CB-469F-A165-70867728950E"))
    let type = objects.count
    objects.append(ascii("com.example.bomb"))
    let version = objects.count
    objects.append([0x10, 1])
    let userInfoRef = objects.count
    objects += userInfo.map { relocate($0, by: userInfoRef) }
    var values = [id, type, userInfoRef, version]
    if let extra {
        let extraRef = objects.count
        objects += extra.objects.map { relocate($0, by: extraRef) }
        values.append(extraRef)
    }
    objects[0] = dictionary(Array(1 ... n), values)
    return bplist(objects)
}

/// Objects written with references relative to their first object.
private func relocate(_ object: [UInt8], by base: Int) -> [UInt8] {
    guard let high = object.first.map({ $0 & 0xF0 }), high == 0xA0 || high == 0xD0 else { return object }
    let header = object[0] & 0x0F == 0x0F ? 4 : 1
    var out = Array(object[0 ..< header])
    var index = header
    while index + 1 < object.count {
        out += be(Int(object[index]) << 8 | Int(object[index + 1]) + base, 2)
        index += 2
    }
    return out
}

/// Relative objects: userInfo {"a": outer}, outer = `wide` refs to middle,
/// middle = `wide` refs to one leaf.
private func squareBomb(wide: Int, leaf: [UInt8]) -> [[UInt8]] {
    [dictionary([1], [2]), ascii("a"), array(Array(repeating: 3, count: wide)),
     array(Array(repeating: 4, count: wide)), leaf]
}

/// The reader's steps for bytes under limits, refused or not.
private func steps(_ bytes: [UInt8], _ limits: DecodingLimits) -> Int {
    BinaryPropertyList.decodeCountingSteps(bytes, limits: limits).steps
}

@Suite("Shared-reference bombs")
struct SharedReferenceBombTests {
    static let payloadLimits = DecodingLimits.canonicalSize(atMost: ActivityCoding.maxPayloadSize)
    static let budgetLimits = DecodingLimits.canonicalSize(atMost: UserInfoRules.payloadBudget)

    @Test("1000 x 1000 x one 4 KB string: 4611 from a few KB of reading")
    func issueBomb() {
        let bytes = payload(userInfo: squareBomb(wide: 1000, leaf: ascii(String(repeating: "x", count: 4096))))
        #expect(bytes.count < 9000)
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try ActivityCoding.decode(bytes) }
        #expect(steps(bytes, Self.payloadLimits) <= 2 * bytes.count)
        // The default limits refuse it too (16 MiB of values), still linearly.
        let generic = BinaryPropertyList.decodeCountingSteps(bytes)
        guard case .failure(let error) = generic.result else { Issue.record("decoded"); return }
        #expect(error.kind == .overLimit)
        #expect(generic.steps <= 2 * bytes.count)
    }

    @Test("the userInfo alone: 4611", arguments: [1, 4096])
    func userInfoBomb(leafSize: Int) {
        let bytes = bplist(squareBomb(wide: 1000, leaf: data(leafSize)))
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try UserInfoCoding.decode(bytes) }
        #expect(steps(bytes, Self.budgetLimits) <= 2 * bytes.count)
    }

    @Test("a bomb outside the userInfo is malformed, not 4611")
    func keywordBomb() {
        // keywords: 1000 references to one 4 KB string.
        let keywords: [[UInt8]] = [array(Array(repeating: 1, count: 1000)), ascii(String(repeating: "k", count: 4096))]
        let bytes = payload(userInfo: [dictionary([], [])], extra: ("keywords", keywords))
        expectCode(.malformedData) { () throws(HandoffError) in _ = try ActivityCoding.decode(bytes) }
        #expect(steps(bytes, Self.payloadLimits) <= 2 * bytes.count)
    }

    @Test("deep chains of shared arrays, dictionaries and sets", arguments: ["array", "dictionary", "set"])
    func deepChains(shape: String) {
        // userInfo {"a": level 0}; 30 levels, each holding 8 references to
        // the next (a set: a tagged NSSet whose members array does); the
        // last level is one 64-byte string: 8^30 values once expanded.
        let levels = 30
        var objects: [[UInt8]] = [dictionary([1], [2]), ascii("a")]
        let perLevel = shape == "set" ? 2 : 1
        let firstLevel = 2 + 8 + 3 // after 8 keys and the set's 3 strings
        let keys = Array(2 ..< 10)
        objects += (0 ..< 8).map { ascii("k\($0)") }
        let (classKey, membersKey, className) = (10, 11, 12)
        objects += [ascii("$class"), ascii("NS.objects"), ascii("NSSet")]
        objects[0] = dictionary([1], [firstLevel])
        for level in 0 ..< levels {
            let here = firstLevel + level * perLevel
            let next = here + perLevel
            switch shape {
            case "dictionary":
                objects.append(dictionary(keys, Array(repeating: next, count: 8)))
            case "set":
                objects.append(dictionary([classKey, membersKey], [className, here + 1]))
                objects.append(array(Array(repeating: next, count: 8)))
            default:
                objects.append(array(Array(repeating: next, count: 8)))
            }
        }
        objects.append(ascii(String(repeating: "z", count: 64)))
        let bytes = bplist(objects)
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try UserInfoCoding.decode(bytes) }
        #expect(steps(bytes, Self.budgetLimits) <= 2 * bytes.count)
        let generic = BinaryPropertyList.decodeCountingSteps(bytes)
        if case .success = generic.result { Issue.record("decoded 8^30 values") }
        #expect(generic.steps <= 2 * bytes.count)
    }

    @Test("shared long dictionary keys are counted before they are hashed")
    func sharedKeys() {
        // 300 dictionaries, each with the same 100 keys of 600 bytes: 18 MB
        // of keys to hash from 180 KB.
        var objects: [[UInt8]] = [[]]
        let firstKey = objects.count
        for index in 0 ..< 100 { objects.append(ascii(String(1000 + index) + String(repeating: "q", count: 596))) }
        let value = objects.count
        objects.append([0x09])
        let firstDictionary = objects.count
        for _ in 0 ..< 300 {
            objects.append(dictionary(Array(firstKey ..< firstKey + 100), Array(repeating: value, count: 100)))
        }
        objects[0] = array(Array(firstDictionary ..< firstDictionary + 300))
        let bytes = bplist(objects)
        let generic = BinaryPropertyList.decodeCountingSteps(bytes, limits: DecodingLimits(maxBytes: 1 << 20))
        guard case .failure(let error) = generic.result else { Issue.record("decoded"); return }
        #expect(error.kind == .overLimit)
        #expect(error.reason.contains("bytes"))
        #expect(generic.steps <= bytes.count)
    }

    @Test("a refusal names where the limits were crossed")
    func topLevelKey() {
        let bytes = payload(userInfo: squareBomb(wide: 100, leaf: data(100)))
        let result = BinaryPropertyList.decodeCountingSteps(bytes, limits: Self.payloadLimits).result
        guard case .failure(let error) = result else { Issue.record("decoded"); return }
        #expect(error.kind == .overLimit)
        #expect(error.topLevelKey == "userInfo")
        #expect((error.topLevelCost?.minimumEncodedSize ?? 0) > UserInfoRules.payloadBudget)
    }
}

@Suite("Canonical size")
struct CanonicalSizeTests {
    static let values: [PropertyListValue] = [
        .integer(1),
        .array([]),
        .dictionary(["a": .integer(-1), "é": .string("Grüße 👋"), "long key of more than fifteen": .data([1, 2, 3])]),
        .array((0 ..< 300).map { .integer(Int64($0) * 1000) }),
        .array((0 ..< 70).map { .string(String(repeating: "x", count: $0 * 20)) }),
        .dictionary(["d": .date(1.5), "r": .real(2.5), "n": .null, "b": .boolean(true), "u": .integer(.max)]),
    ]

    @Test("equals the size of the canonical encoding", arguments: values)
    func matchesEncode(value: PropertyListValue) throws {
        let encoded = BinaryPropertyList.encode(value)
        #expect(BinaryPropertyList.canonicalSize(of: value, atMost: .max) == encoded.count)
        #expect(BinaryPropertyList.canonicalSize(of: value, atMost: encoded.count) == encoded.count)
        #expect(BinaryPropertyList.canonicalSize(of: value, atMost: encoded.count - 1) == nil)
        #expect(try BinaryPropertyList.decodeMeasured(encoded).cost.encodedSize == encoded.count)
    }

    @Test("offsets past 64 KiB and more than 255 objects")
    func largeSizes() throws {
        let value = PropertyListValue.array((0 ..< 400).map { .string(String(repeating: "y", count: 200 + $0)) })
        let encoded = BinaryPropertyList.encode(value)
        #expect(encoded.count > 65_536)
        #expect(BinaryPropertyList.canonicalSize(of: value, atMost: .max) == encoded.count)
        #expect(try BinaryPropertyList.decodeMeasured(encoded).cost.encodedSize == encoded.count)
    }

    /// {"k": [s, s, ..., s], "p": padding}: `count` references to one shared
    /// string of `length` bytes, as a writer that shares equal objects
    /// (plistlib) writes it, and an unshared string of `pad` bytes.
    static func sharedStrings(count: Int, length: Int, pad: Int) -> (objects: [[UInt8]], value: PropertyListValue) {
        let objects = [dictionary([1, 2], [3, 4]), ascii("k"), ascii("p"), array(Array(repeating: 5, count: count)),
                       ascii(String(repeating: "-", count: pad)), ascii(String(repeating: "s", count: length))]
        let value = PropertyListValue.dictionary([
            "k": .array(Array(repeating: .string(String(repeating: "s", count: length)), count: count)),
            "p": .string(String(repeating: "-", count: pad)),
        ])
        return (objects, value)
    }

    @Test("a userInfo small on the wire is accepted exactly when its canonical encoding fits")
    func budgetIsCanonical() throws {
        // 60 references to one 40-byte string: about 300 bytes on the wire.
        var pad = 16
        while BinaryPropertyList.encode(Self.sharedStrings(count: 60, length: 40, pad: pad + 1).value).count <= UserInfoRules.payloadBudget {
            pad += 1
        }
        let fits = Self.sharedStrings(count: 60, length: 40, pad: pad)
        let over = Self.sharedStrings(count: 60, length: 40, pad: pad + 1)
        #expect(BinaryPropertyList.encode(fits.value).count == UserInfoRules.payloadBudget)
        #expect(BinaryPropertyList.encode(over.value).count == UserInfoRules.payloadBudget + 1)
        #expect(bplist(over.objects).count < 700)

        let userInfo = try UserInfoCoding.decode(bplist(fits.objects))
        #expect(UserInfoCoding.encode(userInfo).count == UserInfoRules.payloadBudget)
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try UserInfoCoding.decode(bplist(over.objects)) }

        // The same inside an activity payload; the sender measures the same.
        let activity = try ActivityCoding.decode(payload(userInfo: fits.objects))
        #expect(activity.encodedUserInfoSize == UserInfoRules.payloadBudget)
        #expect(throws: Never.self) { try ActivityCoding.encode(activity) }
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try ActivityCoding.decode(payload(userInfo: over.objects)) }
        var bigger = activity.userInfo
        bigger["p"] = .string(String(repeating: "-", count: pad + 1))
        try activity.setUserInfo(bigger)
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try ActivityCoding.encode(activity) }
    }
}
