// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// Fixtures shared by the beacon tests.
enum BeaconFixtures {
    static let key: [UInt8] = Array(0...31)
    static let nonce: [UInt8] = Array(0...11)

    /// The test vector's advert (docs/PROTOCOL.md, "Discovery beacons").
    static var vectorAdvert: Beacon {
        Beacon(kind: .advert, timestamp: 1_700_000_000_000, sequence: 1,
               deviceID: Array(0xA0...0xAF), deviceName: "Test Device", role: .full, channelPort: 52371,
               activity: BeaconActivity(activityID: Array(0xB0...0xBF), activityType: "com.example.mapoff.view-region",
                                        title: "Cupertino", teamIdentifier: "A1B2C3D4E5",
                                        bundleIdentifier: "com.example.mapoff"))
    }

    /// Computed independently (Python `cryptography`) from the documented layout.
    static let vectorPlaintextHex =
        "010101020000018bcfe568000000000000000001a0a1a2a3a4a5a6a7a8a9aaabacadaeafcc93000b5465737420446576696365"
        + "b0b1b2b3b4b5b6b7b8b9babbbcbdbebf001e636f6d2e6578616d706c652e6d61706f66662e766965772d726567696f6e"
        + "0009437570657274696e6f000a413142324333443445350012636f6d2e6578616d706c652e6d61706f666600000000000000000000"
        + String(repeating: "0", count: 2 * 40)  // 40 bytes of padding
    static let vectorHex =
        "000102030405060708090a0b"
        + "4603d719c5e5c39042a4ff8bb1e9786d83d6873550dafddf9cc24322b5c0aa19adbd00536352129320c10c99a8c34d4e"
        + "873a053deb64106e8a219da1a1594e524d82797acdb2490c3231d20f82ff628d16e7a812190535468b94fbbb5582dcea"
        + "a29737e6ad02bd6afb6e4adb261a2175fb562099a0f661ae08ca57dfe1890320de2a61abc4bbae7d658038ce5bbc4cc2"
        + "36f4e3353511934a8c5fe877fad2e9ee93979e15e9ffcc7ea763ddfadf8086bb9dceca228bab73bc65dfc0c771c5b7f3"
        + "eb507ecb2e8801a1becc029f1bcc0b23"
}

/// An independent writer of the documented plaintext layout, for crafting
/// good and bad plaintexts by hand.
struct BeaconPlaintext {
    var bytes: [UInt8] = []
    mutating func u8(_ v: UInt8) { bytes.append(v) }
    mutating func u16(_ v: UInt16) { bytes += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    mutating func u64(_ v: UInt64) { for i in (0..<8).reversed() { bytes.append(UInt8(truncatingIfNeeded: v >> (8 * UInt64(i)))) } }
    mutating func raw(_ b: [UInt8]) { bytes += b }
    mutating func str(_ s: String) { raw16(Array(s.utf8)) }
    mutating func raw16(_ b: [UInt8]) { u16(UInt16(b.count)); bytes += b }
    mutating func pad() { while bytes.count % 64 != 0 { bytes.append(0) } }

    /// The header up to and including the device name.
    static func header(version: UInt8 = 1, kind: UInt8 = 1, role: UInt8 = 1, flags: UInt8 = 0x02,
                       name: [UInt8] = Array("Dev".utf8)) -> BeaconPlaintext {
        var p = BeaconPlaintext()
        p.u8(version); p.u8(kind); p.u8(role); p.u8(flags)
        p.u64(1_700_000_000_000); p.u64(7)
        p.raw(Array(repeating: 0x11, count: 16))
        p.u16(4242)
        p.raw16(name)
        return p
    }

    /// A complete advert plaintext with the given (raw) strings.
    static func advert(flags: UInt8 = 0x02, name: [UInt8] = Array("Dev".utf8),
                       type: [UInt8] = Array("com.example.a.b".utf8), title: [UInt8] = [],
                       team: [UInt8] = Array("TEAM".utf8), bundle: [UInt8] = Array("com.example.a".utf8),
                       url: [UInt8] = [], expiration: UInt64 = 0, pad: Bool = true) -> [UInt8] {
        var p = header(flags: flags, name: name)
        p.raw(Array(repeating: 0x22, count: 16))
        p.raw16(type); p.raw16(title); p.raw16(team); p.raw16(bundle); p.raw16(url)
        p.u64(expiration)
        if pad { p.pad() }
        return p.bytes
    }

    /// Seals a hand-made plaintext under the test key, as the codec would.
    static func seal(_ plaintext: [UInt8]) -> [UInt8] {
        AESGCM(key: BeaconFixtures.key).seal(plaintext, aad: BeaconCodec.associatedData)
    }
}

@Suite struct BeaconCodecTests {
    let key = BeaconFixtures.key

    static let fullAdvert = Beacon(
        kind: .advert, timestamp: 1_700_000_123_456, sequence: 0xFEDC_BA98_7654_3210,
        deviceID: Array(0x10...0x1F), deviceName: "Jürgen’s ThinkPad 💻", role: .sendOnly, channelPort: 65535,
        activity: BeaconActivity(
            activityID: Array(0x20...0x2F), activityType: "com.example.shapes.edit-shape",
            title: "Ünïcödé – 形状 🟦", teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.shapes",
            webpageURL: "https://example.com/shapes/42?x=1", expiration: 1_800_000_000_000,
            supportsContinuationStreams: true))

    @Test func advertRoundTripsWithEveryField() throws {
        let packet = try BeaconCodec.seal(Self.fullAdvert, key: key)
        #expect(BeaconCodec.open(packet, key: key) == Self.fullAdvert)
    }

    @Test func advertWithAbsentOptionalsRoundTrips() throws {
        var b = Self.fullAdvert
        b.activity!.title = nil
        b.activity!.webpageURL = nil
        b.activity!.expiration = nil
        b.activity!.supportsContinuationStreams = false
        b.role = .full
        b.deviceName = "n"  // a name is required (PROTOCOL §4: 1–64 bytes)
        b.timestamp = 0
        b.sequence = 0
        b.channelPort = 0
        #expect(BeaconCodec.open(try BeaconCodec.seal(b, key: key), key: key) == b)
    }

    @Test func emptyOptionalsTravelAsAbsent() throws {
        var b = Self.fullAdvert
        b.activity!.title = ""
        b.activity!.webpageURL = ""
        b.activity!.expiration = 0
        let opened = try #require(BeaconCodec.open(try BeaconCodec.seal(b, key: key), key: key))
        #expect(opened.activity?.title == nil)
        #expect(opened.activity?.webpageURL == nil)
        #expect(opened.activity?.expiration == nil)
    }

    @Test func maxLengthStringsRoundTrip() throws {
        // Each limit at its maximum, in separate beacons so each fits 1200 bytes.
        var name = Self.fullAdvert
        name.deviceName = String(repeating: "é", count: 32)          // 64 bytes
        var title = Self.fullAdvert
        title.activity!.title = String(repeating: "t", count: 256)
        var ids = Self.fullAdvert
        ids.activity!.activityType = "com." + String(repeating: "a", count: 251)
        ids.activity!.teamIdentifier = String(repeating: "T", count: 255)
        ids.activity!.bundleIdentifier = "org." + String(repeating: "b", count: 251)
        ids.activity!.webpageURL = nil
        var url = Self.fullAdvert   // a 1024-byte URL fits only with short other fields
        url.deviceName = "n"
        url.activity = BeaconActivity(activityID: Array(0x20...0x2F), activityType: "a.b", teamIdentifier: "T",
                                      bundleIdentifier: "a.c",
                                      webpageURL: "https://example.com/" + String(repeating: "u", count: 1004))
        for b in [name, title, ids, url] {
            let packet = try BeaconCodec.seal(b, key: key)
            #expect(packet.count <= BeaconCodec.maxPacketSize)
            #expect(BeaconCodec.open(packet, key: key) == b)
        }
    }

    @Test func withdrawalsRoundTrip() throws {
        let withID = Beacon(kind: .withdraw, timestamp: 1_700_000_000_001, sequence: 2,
                            deviceID: Array(0x10...0x1F), deviceName: "Wohnzimmer", role: .full, channelPort: 52371,
                            activity: .withdrawal(of: Array(0x20...0x2F)))
        #expect(BeaconCodec.open(try BeaconCodec.seal(withID, key: key), key: key) == withID)

        var withoutActivity = withID
        withoutActivity.activity = nil
        #expect(BeaconCodec.open(try BeaconCodec.seal(withoutActivity, key: key), key: key) == withoutActivity)

        // A withdrawal sends only the activity id, whatever else it is given.
        var full = withID
        full.activity = Self.fullAdvert.activity
        let opened = try #require(BeaconCodec.open(try BeaconCodec.seal(full, key: key), key: key))
        #expect(opened.activity == .withdrawal(of: Array(0x20...0x2F)))
        #expect(opened.activity?.activityType == "")
        #expect(try BeaconCodec.seal(withoutActivity, key: key).count == 64 + 28)
    }

    @Test func wrongKeyOpensNothing() throws {
        let packet = try BeaconCodec.seal(Self.fullAdvert, key: key)
        var other = key
        other[31] ^= 1
        #expect(BeaconCodec.open(packet, key: other) == nil)
        #expect(BeaconCodec.open(packet, key: Array(key.prefix(16))) == nil)
        #expect(BeaconCodec.open(packet, key: []) == nil)
    }

    @Test func everySingleBitFlipIsRejected() throws {
        let packet = try BeaconCodec.seal(BeaconFixtures.vectorAdvert, key: key)
        #expect(BeaconCodec.open(packet, key: key) != nil)
        var accepted = 0
        for i in packet.indices {
            for bit in 0..<8 {
                var p = packet
                p[i] ^= 1 << bit
                if BeaconCodec.open(p, key: key) != nil { accepted += 1 }
            }
        }
        #expect(accepted == 0)
    }

    @Test func everyTruncationAndExtensionIsRejected() throws {
        let packet = try BeaconCodec.seal(BeaconFixtures.vectorAdvert, key: key)
        for n in 0..<packet.count {
            #expect(BeaconCodec.open(Array(packet.prefix(n)), key: key) == nil)
            #expect(BeaconCodec.open(Array(packet.suffix(n)), key: key) == nil)
        }
        #expect(BeaconCodec.open(packet + [0], key: key) == nil)
        #expect(BeaconCodec.open(packet + [UInt8](repeating: 0, count: 64), key: key) == nil)
    }

    @Test func twoSealsShareNothing() throws {
        let b = Self.fullAdvert
        let p1 = try BeaconCodec.seal(b, key: key)
        let p2 = try BeaconCodec.seal(b, key: key)
        #expect(p1.count == p2.count)
        #expect(p1.prefix(12) != p2.prefix(12))
        let differing = zip(p1, p2).filter { $0 != $1 }.count
        #expect(Double(differing) >= 0.9 * Double(p1.count))
        for s in [b.deviceName, b.activity!.activityType, b.activity!.title!, b.activity!.teamIdentifier,
                  b.activity!.bundleIdentifier, "A1B2", "com.example"] {
            let needle = Array(s.utf8)
            for p in [p1, p2] {
                #expect(!beaconContains(p, needle), "\(s) appears in a packet")
            }
        }
        // No id, port or timestamp bytes in the clear either.
        #expect(!beaconContains(p1, b.deviceID) && !beaconContains(p1, b.activity!.activityID))
    }

    @Test func lengthsArePaddedToBlocks() throws {
        var b = BeaconFixtures.vectorAdvert
        var lengths: Set<Int> = []
        for n in 1...64 {
            b.deviceName = String(repeating: "x", count: n)
            let plaintext = try BeaconCodec.encode(b)
            #expect(plaintext.count % 64 == 0)
            let packet = try BeaconCodec.seal(b, key: key)
            #expect(packet.count == plaintext.count + 28)
            #expect((packet.count - 28) % 64 == 0)
            lengths.insert(packet.count)
        }
        #expect(lengths.count == 2)  // 64 different names, two packet sizes
        #expect(BeaconCodec.minPacketSize == 92)
    }

    @Test func oversizeOrInvalidBeaconsAreRefused() {
        func refused(_ b: Beacon) -> Bool {
            do { _ = try BeaconCodec.seal(b, key: key); return false }
            catch { return error.code == .invalidValue }
        }
        var big = Self.fullAdvert
        big.activity!.title = String(repeating: "t", count: 256)
        big.activity!.webpageURL = "https://example.com/" + String(repeating: "u", count: 1004)
        #expect(refused(big))  // every field within its limit, the whole too large

        var b = Self.fullAdvert; b.deviceName = String(repeating: "n", count: 65); #expect(refused(b))
        // One rule for device names (PROTOCOL §4): not empty, no control characters.
        b = Self.fullAdvert; b.deviceName = ""; #expect(refused(b))
        b = Self.fullAdvert; b.deviceName = "two\nlines"; #expect(refused(b))
        b = Self.fullAdvert; b.activity!.title = String(repeating: "t", count: 257); #expect(refused(b))
        b = Self.fullAdvert; b.activity!.activityType = String(repeating: "a", count: 256); #expect(refused(b))
        b = Self.fullAdvert; b.activity!.teamIdentifier = ""; #expect(refused(b))
        b = Self.fullAdvert; b.activity!.bundleIdentifier = ""; #expect(refused(b))
        b = Self.fullAdvert; b.activity!.activityType = ""; #expect(refused(b))
        b = Self.fullAdvert; b.activity!.webpageURL = String(repeating: "u", count: 1025); #expect(refused(b))
        b = Self.fullAdvert; b.deviceID = [1, 2, 3]; #expect(refused(b))
        b = Self.fullAdvert; b.activity!.activityID = []; #expect(refused(b))
        b = Self.fullAdvert; b.activity = nil; #expect(refused(b))
        b = Self.fullAdvert; b.kind = .withdraw; b.activity = .withdrawal(of: [1]); #expect(refused(b))

        #expect(throws: HandoffError.self) { try BeaconCodec.seal(Self.fullAdvert, key: [1, 2, 3]) }
        #expect(throws: HandoffError.self) { try BeaconCodec.seal(Self.fullAdvert, key: key, nonce: [1]) }
    }

    // MARK: Hand-crafted plaintexts

    @Test func handWrittenLayoutMatchesTheCodec() throws {
        // The documented layout, written independently, opens to the beacon
        // it describes, and the codec writes exactly those bytes.
        let plaintext = BeaconPlaintext.advert(flags: 0x03, title: Array("Hi".utf8),
                                               url: Array("https://e.x/".utf8), expiration: 99)
        let b = try #require(BeaconCodec.open(BeaconPlaintext.seal(plaintext), key: key))
        #expect(b.kind == .advert && b.role == .full && b.sequence == 7 && b.channelPort == 4242)
        #expect(b.deviceID == Array(repeating: 0x11, count: 16) && b.deviceName == "Dev")
        #expect(b.activity == BeaconActivity(activityID: Array(repeating: 0x22, count: 16), activityType: "com.example.a.b",
                                             title: "Hi", teamIdentifier: "TEAM", bundleIdentifier: "com.example.a",
                                             webpageURL: "https://e.x/", expiration: 99, supportsContinuationStreams: true))
        #expect(try BeaconCodec.encode(b) == plaintext)
    }

    @Test func badHeadersAreDropped() {
        func opens(_ p: [UInt8]) -> Bool { BeaconCodec.open(BeaconPlaintext.seal(p), key: key) != nil }
        #expect(opens(BeaconPlaintext.advert()))
        for version: UInt8 in [0, 2, 255] {
            var p = BeaconPlaintext.advert(); p[0] = version; #expect(!opens(p))
        }
        for kind: UInt8 in [0, 3, 255] { var p = BeaconPlaintext.advert(); p[1] = kind; #expect(!opens(p)) }
        for role: UInt8 in [0, 3, 255] { var p = BeaconPlaintext.advert(); p[2] = role; #expect(!opens(p)) }
        // No activity id, or a reserved flag (0x04, 0x08): dropped. The
        // optional flags (0xF0) of later revisions are ignored.
        for flags: UInt8 in [0x00, 0x01, 0x04, 0x08, 0x80, 0x06, 0x0A, 0x86] { #expect(!opens(BeaconPlaintext.advert(flags: flags))) }
        for flags: UInt8 in [0x12, 0x82, 0xF2, 0xF3] { #expect(opens(BeaconPlaintext.advert(flags: flags))) }

        // A withdrawal may not claim continuation streams.
        var w = BeaconPlaintext.header(kind: 2, flags: 0x01); w.pad()
        #expect(!opens(w.bytes))
        var ok = BeaconPlaintext.header(kind: 2, flags: 0x00); ok.pad()
        #expect(opens(ok.bytes))
    }

    @Test func badStringsAreDropped() {
        func opens(_ p: [UInt8]) -> Bool { BeaconCodec.open(BeaconPlaintext.seal(p), key: key) != nil }
        let badUTF8: [[UInt8]] = [[0xFF], [0xC3], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0x61, 0x80, 0x62]]
        for bad in badUTF8 {
            #expect(!opens(BeaconPlaintext.advert(name: bad)))
            #expect(!opens(BeaconPlaintext.advert(type: bad)))
            #expect(!opens(BeaconPlaintext.advert(title: bad)))
            #expect(!opens(BeaconPlaintext.advert(team: bad)))
            #expect(!opens(BeaconPlaintext.advert(bundle: bad)))
            #expect(!opens(BeaconPlaintext.advert(url: bad)))
        }
        // Limits: at the limit opens, one over is dropped.
        let a = UInt8(ascii: "a")
        #expect(opens(BeaconPlaintext.advert(name: Array(repeating: a, count: 64))))
        #expect(!opens(BeaconPlaintext.advert(name: Array(repeating: a, count: 65))))
        #expect(opens(BeaconPlaintext.advert(title: Array(repeating: a, count: 256))))
        #expect(!opens(BeaconPlaintext.advert(title: Array(repeating: a, count: 257))))
        #expect(opens(BeaconPlaintext.advert(team: Array(repeating: a, count: 255))))
        #expect(!opens(BeaconPlaintext.advert(team: Array(repeating: a, count: 256))))
        #expect(!opens(BeaconPlaintext.advert(type: Array(repeating: a, count: 256))))
        #expect(!opens(BeaconPlaintext.advert(bundle: Array(repeating: a, count: 256))))
        #expect(opens(BeaconPlaintext.advert(url: Array(repeating: a, count: 1024))))
        #expect(!opens(BeaconPlaintext.advert(url: Array(repeating: a, count: 1025))))
        // Required strings may not be empty; a device name follows the
        // device-name rule (PROTOCOL §4): no control characters either.
        #expect(!opens(BeaconPlaintext.advert(name: [])))
        #expect(!opens(BeaconPlaintext.advert(name: Array("two\nlines".utf8))))
        #expect(!opens(BeaconPlaintext.advert(name: [0x61, 0xC2, 0x85])))  // U+0085, a C1 control
        #expect(!opens(BeaconPlaintext.advert(type: [])))
        #expect(!opens(BeaconPlaintext.advert(team: [])))
        #expect(!opens(BeaconPlaintext.advert(bundle: [])))
    }

    @Test func badPaddingAndLengthsAreDropped() {
        func opens(_ p: [UInt8]) -> Bool { BeaconCodec.open(BeaconPlaintext.seal(p), key: key) != nil }
        let good = BeaconPlaintext.advert()
        let unpadded = BeaconPlaintext.advert(pad: false)
        #expect(good.count > unpadded.count)  // the fixture has some padding

        // Every non-zero padding byte is caught, once the padding has
        // started (a non-zero byte where it would start is an extension's
        // type: BeaconGrowthTests).
        for i in (unpadded.count + 1)..<good.count {
            var p = good; p[i] = 0x01; #expect(!opens(p))
        }
        // A whole extra block of zeros is not canonical.
        #expect(!opens(good + [UInt8](repeating: 0, count: 64)))
        // Lengths not a multiple of 64 (sealed as is) are dropped.
        #expect(!opens(unpadded))
        #expect(!opens(Array(good.dropLast())))

        // A string length running past the end of the plaintext.
        let nameLengthOffset = 38
        var p = good; p[nameLengthOffset] = 0xFF; p[nameLengthOffset + 1] = 0xFF; #expect(!opens(p))
        p = good; p[nameLengthOffset] = 0; p[nameLengthOffset + 1] = UInt8(good.count - 40 + 1); #expect(!opens(p))
        // The fields stopping short of their end (an advert cut after the name).
        var short = BeaconPlaintext.header(); short.raw(Array(repeating: 0x22, count: 16)); short.pad()
        #expect(!opens(short.bytes))
        // Empty and too-small plaintexts.
        #expect(!opens([]))
        #expect(!opens([UInt8](repeating: 0, count: 64)))
    }

    // MARK: Test vector

    @Test func testVector() throws {
        let packet = try BeaconCodec.seal(BeaconFixtures.vectorAdvert, key: key, nonce: BeaconFixtures.nonce)
        #expect(beaconHex(try BeaconCodec.encode(BeaconFixtures.vectorAdvert)) == BeaconFixtures.vectorPlaintextHex)
        #expect(beaconHex(packet) == BeaconFixtures.vectorHex)
        #expect(BeaconCodec.open(packet, key: key) == BeaconFixtures.vectorAdvert)
    }
}

func beaconHex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef")
    return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
}

private func beaconContains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= haystack.count else { return false }
    for i in 0...(haystack.count - needle.count) where Array(haystack[i..<(i + needle.count)]) == needle {
        return true
    }
    return false
}
