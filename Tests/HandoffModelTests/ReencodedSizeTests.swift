// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffTestSupport
import Testing
@testable import HandoffModel

// The budget is the size of what a userInfo is written as (docs/PROTOCOL.md
// §1.1, §2). A receiver measures what it reads at that size, each value kind
// at the canonical cost of what it re-encodes to, so a userInfo it accepts
// always encodes within the budget and decodes to itself again. One test
// per kind whose wire form may differ in size from its canonical form.

/// Raw bplist00 objects, for wire forms no canonical writer produces
/// (shared objects, wide integers, ASCII in UTF-16, 4-byte reals).
/// References are 2 bytes, offsets 4.
private enum Wire {
    static func file(_ objects: [[UInt8]]) -> [UInt8] {
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            out += object
        }
        let table = out.count
        for offset in offsets { out += be(offset, 4) }
        out += [0, 0, 0, 0, 0, 0, 4, 2]
        out += be(objects.count, 8) + be(0, 8) + be(table, 8)
        return out
    }

    static func be<T: BinaryInteger>(_ value: T, _ size: Int) -> [UInt8] {
        (0 ..< size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// Counts from 15 on as a 2-byte integer (canonical would use 1 below 256).
    static func marker(_ high: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [high | UInt8(count)] : [high | 0x0F, 0x11] + be(count, 2)
    }

    static func array(_ refs: [Int]) -> [UInt8] { marker(0xA0, refs.count) + refs.flatMap { be($0, 2) } }
    static func dictionary(_ keys: [Int], _ values: [Int]) -> [UInt8] {
        marker(0xD0, keys.count) + keys.flatMap { be($0, 2) } + values.flatMap { be($0, 2) }
    }
    static func ascii(_ text: String) -> [UInt8] { marker(0x50, text.utf8.count) + Array(text.utf8) }
    static func utf16(_ text: String) -> [UInt8] {
        marker(0x60, text.utf16.count) + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
    static let null: [UInt8] = [0x00]

    /// {"v": value}: the value's objects follow the key, value first.
    static func userInfo(_ value: [[UInt8]]) -> [UInt8] {
        file([dictionary([1], [2]), ascii("v")] + value)
    }
}

private let budget = UserInfoRules.payloadBudget

/// How a reader measures a userInfo as read: the cost `decode` checks first.
private func measuredAsRead(_ bytes: [UInt8]) throws -> Int {
    try BinaryPropertyList.decodeMeasured(bytes, limits: UserInfoCoding.decodingLimits(canonicalSizeAtMost: .max)).cost.encodedSize
}

/// What a null token was measured as before: the token itself.
private func measuredAsTokens(_ bytes: [UInt8]) throws -> Int {
    try BinaryPropertyList.decodeMeasured(bytes, limits: DecodingLimits(maxObjects: .max, maxBytes: .max)).cost.encodedSize
}

/// Anything accepted encodes within the budget, and decoding the encoding
/// gives the same value (compared by its canonical bytes, so NaN counts as
/// itself) and the same encoding.
private func expectRoundTrip(_ userInfo: UserInfo, sourceLocation: SourceLocation = #_sourceLocation) {
    let encoded = UserInfoCoding.encode(userInfo)
    #expect(encoded.count <= budget, sourceLocation: sourceLocation)
    #expect(UserInfoCoding.canonicalCost(of: userInfo).encodedSize == encoded.count, sourceLocation: sourceLocation)
    do {
        let again = try UserInfoCoding.decode(encoded)
        #expect(UserInfoCoding.encode(again) == encoded, sourceLocation: sourceLocation)
    } catch {
        Issue.record("its encoding is refused: \(error)", sourceLocation: sourceLocation)
    }
}

@Suite("Re-encoded size")
struct ReencodedSizeTests {
    // MARK: Null tokens

    @Test("a null token is measured as {\"$class\": \"NSNull\"}, 3 values and 15 bytes")
    func nullToken() throws {
        let bytes = BinaryPropertyList.encode(.dictionary(["n": .null]))
        let written = UserInfoCoding.encode(["n": .null])
        #expect(try measuredAsRead(bytes) == written.count)
        #expect(try measuredAsTokens(bytes) == bytes.count)
        #expect(written.count > bytes.count)
        let limits = UserInfoCoding.decodingLimits(canonicalSizeAtMost: .max)
        #expect(try BinaryPropertyList.decodeMeasured([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30, 0x00, 0x08]
            + [0, 0, 0, 0, 0, 0, 1, 1] + Wire.be(1, 8) + Wire.be(0, 8) + Wire.be(9, 8), limits: limits).cost
            == CanonicalCost(objects: 3, bytes: 15))
        expectRoundTrip(try UserInfoCoding.decode(bytes))
    }

    /// {"k": [null × count], "p": padding}, each null its own token or all
    /// one shared token.
    static func nulls(count: Int, shared: Bool, pad: Int) -> (bytes: [UInt8], written: Int) {
        let nulls = shared ? [Wire.null] : Array(repeating: Wire.null, count: count)
        let refs = shared ? Array(repeating: 5, count: count) : Array(5 ..< 5 + count)
        let bytes = Wire.file([Wire.dictionary([1, 2], [3, 4]), Wire.ascii("k"), Wire.ascii("p"), Wire.array(refs),
                               Wire.ascii(String(repeating: "-", count: pad))] + nulls)
        let written = UserInfoCoding.encode([
            "k": .array(Array(repeating: .null, count: count)), "p": .string(String(repeating: "-", count: pad)),
        ]).count
        return (bytes, written)
    }

    @Test("null tokens: accepted exactly when what they are written as fits", arguments: [false, true])
    func nullTokensAtTheBudget(shared: Bool) throws {
        var pad = 0
        while Self.nulls(count: 100, shared: shared, pad: pad + 1).written <= budget { pad += 1 }
        let fits = Self.nulls(count: 100, shared: shared, pad: pad)
        let over = Self.nulls(count: 100, shared: shared, pad: pad + 1)
        #expect(fits.written <= budget && over.written > budget)
        // Counted as tokens, the larger one would have looked well within.
        #expect(try measuredAsTokens(over.bytes) < budget - 1000)
        #expect(try measuredAsRead(fits.bytes) == fits.written)
        #expect(try measuredAsRead(over.bytes) == over.written)

        expectRoundTrip(try UserInfoCoding.decode(fits.bytes))
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try UserInfoCoding.decode(over.bytes) }
    }

    @Test("the fuzzer's finding is refused with 4611")
    func fuzzFinding() throws {
        let bytes = try FuzzCorpus.read("userinfo", "found-null-token-counted-as-1-byte")
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try UserInfoCoding.decode(bytes) }
    }

    @Test("a null token counts as one container more")
    func nullTokenDepth() throws {
        // 64 nested arrays, the innermost holding a null token.
        var objects: [[UInt8]] = (0 ..< 64).map { Wire.array([$0 + 1]) }
        objects.append(Wire.null)
        let bytes = Wire.file(objects)
        #expect(throws: Never.self) { try BinaryPropertyList.decode(bytes) }
        do {
            _ = try BinaryPropertyList.decode(bytes, limits: DecodingLimits(nullStandsFor: UserInfoCoding.taggedNull))
            Issue.record("accepted")
        } catch {
            #expect(error.reason.contains("nested deeper than 64"))
        }
    }

    @Test("an activity payload measures null tokens in its userInfo as written")
    func nullTokensInAPayload() throws {
        var pad = 0
        func payload(_ pad: Int) -> (bytes: [UInt8], written: Int) {
            let userInfo = PropertyListValue.dictionary([
                "k": .array(Array(repeating: .null, count: 100)), "p": .string(String(repeating: "-", count: pad)),
            ])
            let written = UserInfoCoding.encode(["k": .array(Array(repeating: .null, count: 100)),
                                                 "p": .string(String(repeating: "-", count: pad))]).count
            return (BinaryPropertyList.encode(.dictionary([
                "version": .integer(1), "activityID": .string("0F8FAD5B-D9CB-469F-A165-70867728950E"),
                "activityType": .string("com.example.nulls"), "userInfo": userInfo,
            ])), written)
        }
        while payload(pad + 1).written <= budget { pad += 1 }
        let activity = try ActivityCoding.decode(payload(pad).bytes)
        let encoded = try ActivityCoding.encode(activity)
        #expect(UserInfoCoding.encode(activity.userInfo).count <= budget)
        #expect(try ActivityCoding.encode(ActivityCoding.decode(encoded)) == encoded)
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try ActivityCoding.decode(payload(pad + 1).bytes) }
    }

    // MARK: Kinds whose wire form is not their canonical form

    /// A userInfo {"v": value} in a non-canonical wire form, and what the
    /// value is.
    static let kinds: [(name: String, objects: [[UInt8]], value: UserInfoValue)] = [
        ("date", [[0x33] + Wire.be(Double(1e9).bitPattern, 8)], .date(Timestamp(timeIntervalSinceReferenceDate: 1e9))),
        ("4-byte real", [[0x22] + Wire.be(Float(1.5).bitPattern, 4)], .real(1.5)),
        ("8-byte real", [[0x23] + Wire.be((-2.25).bitPattern, 8)], .real(-2.25)),
        ("small integer in 8 bytes", [[0x13] + Wire.be(7, 8)], .integer(7)),
        ("small integer in 2 bytes", [[0x11] + Wire.be(7, 2)], .integer(7)),
        ("integer in 16 bytes", [[0x14] + Wire.be(0, 8) + Wire.be(300, 8)], .integer(300)),
        ("negative integer in 16 bytes", [[0x14] + Wire.be(-1, 8) + Wire.be(-5, 8)], .integer(-5)),
        ("data with a 2-byte length", [Wire.marker(0x40, 20) + Array(repeating: 0xAB, count: 20)],
         .data([UInt8](repeating: 0xAB, count: 20))),
        ("ASCII string as UTF-16", [Wire.utf16("plain ascii text")], .string("plain ascii text")),
        ("short ASCII string as UTF-16", [Wire.utf16("abc")], .string("abc")),
        ("non-ASCII string", [Wire.utf16("Grüße 👋 and more")], .string("Grüße 👋 and more")),
        ("tagged null", [Wire.dictionary([1], [2]), Wire.ascii("$class"), Wire.ascii("NSNull")], .null),
        ("tagged URL", [Wire.dictionary([1, 2], [3, 4]), Wire.ascii("$class"), Wire.ascii("NS.relative"),
                        Wire.ascii("NSURL"), Wire.ascii("https://example.com/a")],
         .url(URLReference(string: "https://example.com/a")!)),
        ("tagged set", [Wire.dictionary([1, 2], [3, 4]), Wire.ascii("$class"), Wire.ascii("NS.objects"),
                        Wire.ascii("NSSet"), Wire.array([5, 6]), [0x10, 2], [0x10, 1]],
         .set([.integer(1), .integer(2)])),
        // [d, d, d] with d = {"x": null token} shared: each reference counted.
        ("shared dictionary holding a null", [Wire.array([1, 1, 1]), Wire.dictionary([2], [3]), Wire.ascii("x"), Wire.null],
         .array(Array(repeating: .dictionary(["x": .null]), count: 3))),
        // [s × 20], one shared 30-byte string.
        ("shared string", [Wire.array(Array(repeating: 1, count: 20)), Wire.ascii(String(repeating: "s", count: 30))],
         .array(Array(repeating: .string(String(repeating: "s", count: 30)), count: 20))),
    ]

    @Test("each kind is measured as read at exactly what it is written as", arguments: kinds.indices)
    func kind(_ index: Int) throws {
        let (name, objects, value) = Self.kinds[index]
        // Objects of the value are relative to it: shift them past the key.
        let bytes = Wire.userInfo(objects.map { Self.shift($0, by: 2) })
        let decoded = try UserInfoCoding.decode(bytes)
        #expect(decoded == ["v": value], "\(name)")
        let written = UserInfoCoding.encode(decoded).count
        #expect(try measuredAsRead(bytes) == written, "\(name)")
        #expect(UserInfoCoding.canonicalCost(of: decoded).encodedSize == written, "\(name)")
        expectRoundTrip(decoded)
    }

    /// Container objects with references relative to their value's first object.
    static func shift(_ object: [UInt8], by base: Int) -> [UInt8] {
        guard let high = object.first.map({ $0 & 0xF0 }), high == 0xA0 || high == 0xD0 else { return object }
        let header = object[0] & 0x0F == 0x0F ? 4 : 1
        var out = Array(object[0 ..< header])
        var index = header
        while index + 1 < object.count {
            out += Wire.be(Int(object[index]) << 8 | Int(object[index + 1]) + base, 2)
            index += 2
        }
        return out
    }

    @Test("UIDs and sets are refused, never measured")
    func uidAndSetMarkers() {
        for object: [UInt8] in [[0x80, 0x01], [0xC1, 0x00, 0x02], [0xB0]] {
            expectCode(.malformedData) { () throws(HandoffError) in _ = try UserInfoCoding.decode(Wire.userInfo([object])) }
        }
    }

    // MARK: URLs: written back percent-encoded

    /// {"u": NSURL "https://a/" + spaces, "p": padding}: each space is
    /// written back as "%20".
    static func spacedURL(spaces: Int, pad: Int) -> [UInt8] {
        let url = "https://a/" + String(repeating: " ", count: spaces)
        return BinaryPropertyList.encode(.dictionary([
            "u": .dictionary(["$class": .string("NSURL"), "NS.relative": .string(url)]),
            "p": .string(String(repeating: "-", count: pad)),
        ]))
    }

    @Test("a URL that grows when written back is measured as written")
    func urlGrowth() throws {
        var pad = 0
        func written(_ pad: Int) -> Int {
            UserInfoCoding.encode(["u": .url(URLReference(string: "https://a/" + String(repeating: " ", count: 500))!),
                                   "p": .string(String(repeating: "-", count: pad))]).count
        }
        while written(pad + 1) <= budget { pad += 1 }
        let fits = Self.spacedURL(spaces: 500, pad: pad)
        let over = Self.spacedURL(spaces: 500, pad: pad + 1)
        // As read, both are 1000 bytes under: only the written form is over.
        #expect(try measuredAsRead(over) < budget - 900)
        let decoded = try UserInfoCoding.decode(fits)
        #expect(UserInfoCoding.encode(decoded).count == written(pad))
        expectRoundTrip(decoded)
        expectCode(.userInfoTooLarge) { () throws(HandoffError) in _ = try UserInfoCoding.decode(over) }
    }

    @Test("a URL that shrinks when written back (UTF-16 on the wire) round-trips")
    func urlShrink() throws {
        let bytes = Wire.userInfo([
            Wire.dictionary([1, 2], [3, 4]), Wire.ascii("$class"), Wire.ascii("NS.relative"), Wire.ascii("NSURL"),
            Wire.utf16("https://example.com/" + String(repeating: "é", count: 10) + String(repeating: "x", count: 200)),
        ].map { Self.shift($0, by: 2) })
        let decoded = try UserInfoCoding.decode(bytes)
        #expect(UserInfoCoding.encode(decoded).count < (try measuredAsRead(bytes)))
        expectRoundTrip(decoded)
    }

    // MARK: Sets: duplicate members collapse

    @Test("a set with duplicate members is measured as read, an upper bound of what it is written as")
    func setDuplicates() throws {
        // NSSet whose members array references one string 10 times.
        let bytes = Wire.userInfo([
            Wire.dictionary([1, 2], [3, 4]), Wire.ascii("$class"), Wire.ascii("NS.objects"), Wire.ascii("NSSet"),
            Wire.array(Array(repeating: 5, count: 10)), Wire.ascii(String(repeating: "m", count: 100)),
        ].map { Self.shift($0, by: 2) })
        let decoded = try UserInfoCoding.decode(bytes)
        #expect(decoded == ["v": .set([.string(String(repeating: "m", count: 100))])])
        #expect(UserInfoCoding.encode(decoded).count < (try measuredAsRead(bytes)))
        expectRoundTrip(decoded)
    }

    // MARK: The measure itself

    @Test("canonicalCost(of:) is the size of the encoding, every kind nested")
    func costOfEveryKind() {
        var userInfo = everyType
        userInfo["nested"] = .array([.set([.null, .url(URLReference(string: "https://x/ y")!), .set([.data([UInt8](repeating: 0, count: 40))])]),
                                     .dictionary(["n": .null, "s": .set([])])])
        userInfo["long"] = .set(Set((0 ..< 40).map { UserInfoValue.integer(Int64($0) << 20) }))
        let encoded = UserInfoCoding.encode(userInfo)
        #expect(UserInfoCoding.canonicalCost(of: userInfo).encodedSize == encoded.count)
        #expect(BinaryPropertyList.canonicalSize(of: UserInfoCoding.propertyList(userInfo), atMost: .max) == encoded.count)
    }

    @Test("handoff_value_decode's decoder bounds what a value is written as")
    func valueDecode() throws {
        // [null × 9]: 28 values written; [null × 10]: 31.
        let limits = DecodingLimits(maxObjects: 30)
        let nine = BinaryPropertyList.encode(.array(Array(repeating: .null, count: 9)))
        let ten = BinaryPropertyList.encode(.array(Array(repeating: .null, count: 10)))
        let value = try UserInfoCoding.decodeValue(nine, limits: limits)
        let encoded = BinaryPropertyList.encode(UserInfoCoding.propertyList(value))
        #expect(try UserInfoCoding.decodeValue(encoded, limits: limits) == value)
        expectCode(.malformedData) { () throws(HandoffError) in _ = try UserInfoCoding.decodeValue(ten, limits: limits) }
        // A URL of 100 spaces is 110 bytes read and 310 written.
        let url = BinaryPropertyList.encode(.dictionary([
            "$class": .string("NSURL"), "NS.relative": .string("https://a/" + String(repeating: " ", count: 100)),
        ]))
        #expect(throws: Never.self) { try UserInfoCoding.decodeValue(url, limits: DecodingLimits(maxBytes: 400)) }
        expectCode(.malformedData) { () throws(HandoffError) in _ = try UserInfoCoding.decodeValue(url, limits: DecodingLimits(maxBytes: 300)) }
    }
}

@Suite("Re-encoded activity payloads")
struct ReencodedPayloadTests {
    static func payload(_ fields: [String: PropertyListValue]) -> [UInt8] {
        var d: [String: PropertyListValue] = [
            "version": .integer(1), "activityID": .string("0F8FAD5B-D9CB-469F-A165-70867728950E"),
            "activityType": .string("com.example.reencode"), "userInfo": .dictionary([:]),
        ]
        d.merge(fields) { $1 }
        return BinaryPropertyList.encode(.dictionary(d))
    }

    @Test("a required key the userInfo lacks is malformed: the payload could not be sent again")
    func missingRequiredKey() throws {
        let lacking = Self.payload(["requiredUserInfoKeys": .array([.string("a")])])
        expectCode(.malformedData) { () throws(HandoffError) in _ = try ActivityCoding.decode(lacking) }
        let present = Self.payload(["requiredUserInfoKeys": .array([.string("a")]), "userInfo": .dictionary(["a": .integer(1)])])
        let activity = try ActivityCoding.decode(present)
        #expect(activity.requiredUserInfoKeys == ["a"])
        #expect(try ActivityCoding.decode(ActivityCoding.encode(activity)).snapshot == activity.snapshot)
    }

    @Test("a web page URL that grows when written back is measured as written")
    func webpageURLGrowth() throws {
        // 20,000 spaces: 20 KB read, 60 KB written; the title takes the rest.
        let url = "https://a.example/" + String(repeating: " ", count: 20_000)
        func fields(_ title: Int) -> [String: PropertyListValue] {
            ["webpageURL": .string(url), "title": .string(String(repeating: "t", count: title))]
        }
        let state = try ActivityCoding.decode(Self.payload(fields(0))).snapshot
        func written(_ title: Int) -> Int {
            var s = state
            s.title = String(repeating: "t", count: title)
            return ActivityCoding.canonicalSize(s, id: ActivityID(uuidString: "0F8FAD5B-D9CB-469F-A165-70867728950E")!,
                                                type: "com.example.reencode")
        }
        // The longest title that still fits once written.
        var (title, over) = (0, ActivityCoding.maxPayloadSize)
        while over - title > 1 {
            let middle = (title + over) / 2
            if written(middle) <= ActivityCoding.maxPayloadSize { title = middle } else { over = middle }
        }
        let fits = try ActivityCoding.decode(Self.payload(fields(title)))
        let encoded = try ActivityCoding.encode(fits)
        #expect(encoded.count == written(title))
        #expect(encoded.count <= ActivityCoding.maxPayloadSize)
        #expect(try ActivityCoding.encode(ActivityCoding.decode(encoded)) == encoded)
        let overBytes = Self.payload(fields(title + 1))
        #expect(overBytes.count < ActivityCoding.maxPayloadSize - 30_000)
        expectCode(.malformedData) { () throws(HandoffError) in _ = try ActivityCoding.decode(overBytes) }
    }
}
