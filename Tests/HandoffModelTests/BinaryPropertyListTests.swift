// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
@testable import HandoffModel

// Tests for the bplist00 codec: round trips, determinism, byte-exact
// agreement with CPython's plistlib, and hostile input.

// MARK: - Helpers

/// Bytes from hex; whitespace is ignored.
private func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.unicodeScalars.filter { !$0.properties.isWhitespace })
    precondition(digits.count.isMultiple(of: 2), "odd number of hex digits")
    return stride(from: 0, to: digits.count, by: 2).map {
        UInt8(String(String.UnicodeScalarView(digits[$0 ..< $0 + 2])), radix: 16)!
    }
}

private func roundTrip(_ value: PropertyListValue) throws -> PropertyListValue {
    try BinaryPropertyList.decode(BinaryPropertyList.encode(value))
}

/// Equality that also tells NaN payloads and -0.0 apart: same encoding.
private func identical(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
    BinaryPropertyList.encode(a) == BinaryPropertyList.encode(b)
}

/// Expects `decode` to throw a PropertyListError whose reason contains `fragment`.
private func expectRejected(
    _ bytes: [UInt8], _ fragment: String, limits: DecodingLimits = .default,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let value = try BinaryPropertyList.decode(bytes, limits: limits)
        Issue.record(
            "decoded to \(summary(value)); expected a rejection mentioning \"\(fragment)\"",
            sourceLocation: sourceLocation)
    } catch {
        #expect(error.reason.contains(fragment), "reason was: \(error.reason)", sourceLocation: sourceLocation)
    }
}

/// The top level of a value, for messages; safe for huge shared structures.
private func summary(_ value: PropertyListValue) -> String {
    switch value {
    case .array(let items): "an array of \(items.count)"
    case .dictionary(let entries): "a dictionary of \(entries.count)"
    case .data(let bytes): "\(bytes.count) bytes of data"
    case .string(let text): "a string of \(text.utf8.count) UTF-8 bytes"
    default: "\(value)"
    }
}

/// Assembles a bplist00 file from raw object bytes. Containers in `objects`
/// refer to other objects by index in `refSize` bytes.
private func assemble(_ objects: [[UInt8]], top: UInt64 = 0, refSize: UInt8 = 1, offsetSize: Int = 1) -> [UInt8] {
    var bytes = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects {
        offsets.append(bytes.count)
        bytes += object
    }
    let tableOffset = bytes.count
    for offset in offsets { bytes += bigEndian(UInt64(offset), size: offsetSize) }
    bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), refSize]
    bytes += bigEndian(UInt64(objects.count), size: 8)
    bytes += bigEndian(top, size: 8)
    bytes += bigEndian(UInt64(tableOffset), size: 8)
    return bytes
}

private func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
    (0 ..< size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
}

/// The trailer's fields, as offsets from the end of the file.
enum BinaryPropertyListTrailerField {
    case offsetIntSize, objectRefSize, numObjects, topObject, offsetTableOffset

    var fromEnd: Int {
        switch self {
        case .offsetIntSize: 26
        case .objectRefSize: 25
        case .numObjects: 24
        case .topObject: 16
        case .offsetTableOffset: 8
        }
    }
    var size: Int { fromEnd > 24 ? 1 : 8 }
}

private func withTrailer(_ bytes: [UInt8], _ field: BinaryPropertyListTrailerField, _ value: UInt64) -> [UInt8] {
    var bytes = bytes
    let start = bytes.count - field.fromEnd
    bytes.replaceSubrange(start ..< start + field.size, with: bigEndian(value, size: field.size))
    return bytes
}

/// Rewrites entry `index` of a 1-byte offset table.
private func withOffset(_ bytes: [UInt8], index: Int, _ offset: UInt8) -> [UInt8] {
    var bytes = bytes
    let tableOffset = Int(bytes[bytes.count - 1]) // files built here are < 256 bytes
    bytes[tableOffset + index] = offset
    return bytes
}

/// ASCII string object.
private func ascii(_ text: String) -> [UInt8] {
    precondition(text.utf8.count < 15)
    return [0x50 | UInt8(text.utf8.count)] + Array(text.utf8)
}

/// UTF-16 string object from code units.
private func utf16(_ units: [UInt16]) -> [UInt8] {
    precondition(units.count < 15)
    return [0x60 | UInt8(units.count)] + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
}

/// SplitMix64: small, seeded, the same on every platform.
private struct SplitMix64 {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next()) }
}

/// `depth` arrays nested inside each other around an integer.
private func nestedArrays(_ depth: Int) -> PropertyListValue {
    var value = PropertyListValue.integer(1)
    for _ in 0 ..< depth { value = .array([value]) }
    return value
}

/// A value with every case, nesting, and both string encodings.
private let sample: PropertyListValue = .dictionary([
    "null": .null,
    "yes": .boolean(true),
    "no": .boolean(false),
    "small": .integer(7),
    "negative": .integer(-123_456_789),
    "big": .integer(Int64.max),
    "pi": .real(3.141_592_653_589_793),
    "when": .date(599_627_045.25),
    "bytes": .data([0x00, 0xFF, 0x10, 0x80]),
    "ascii": .string("plain text"),
    "unicode": .string("naïve 😀 café"),
    "list": .array([.integer(1), .string("two"), .array([]), .dictionary([:])]),
    "nested": .dictionary(["deeper": .dictionary(["deepest": .array([.real(-0.5), .null])])]),
])

// MARK: - Round trips

@Suite("Binary property list: round trips")
struct BinaryPropertyListRoundTripTests {
    static let scalars: [PropertyListValue] = [
        .null, .boolean(true), .boolean(false),
        .integer(0), .integer(42), .integer(-42),
        .real(1.5), .date(0), .date(-978_307_200), .date(599_627_045.5),
        .data([]), .data([0, 1, 2, 255]),
        .string(""), .string("hello"), .string("héllo"),
        .array([]), .dictionary([:]),
    ]

    @Test("every case round-trips at top level", arguments: scalars)
    func scalarRoundTrip(_ value: PropertyListValue) throws {
        #expect(try roundTrip(value) == value)
    }

    @Test("nested containers and empty containers round-trip")
    func nested() throws {
        #expect(try roundTrip(sample) == sample)
        let empties: PropertyListValue = .array([
            .array([]), .dictionary([:]), .array([.array([.array([])])]),
            .dictionary(["": .dictionary(["": .array([])])]), .data([]), .string(""),
        ])
        #expect(try roundTrip(empties) == empties)
    }

    @Test(
        "integers use the smallest size, negatives 8 bytes",
        arguments: [
            (Int64(0), "10 00"),
            (255, "10 FF"),
            (256, "11 0100"),
            (65535, "11 FFFF"),
            (65536, "12 00010000"),
            (Int64(UInt32.max), "12 FFFFFFFF"),
            (Int64(UInt32.max) + 1, "13 0000000100000000"),
            (Int64.max, "13 7FFFFFFFFFFFFFFF"),
            (Int64.min, "13 8000000000000000"),
            (-1, "13 FFFFFFFFFFFFFFFF"),
        ])
    func integerBoundaries(_ number: Int64, _ object: String) throws {
        let bytes = BinaryPropertyList.encode(.integer(number))
        let expected = hex(object)
        #expect(Array(bytes[8 ..< 8 + expected.count]) == expected)
        #expect(try BinaryPropertyList.decode(bytes) == .integer(number))
    }

    @Test(
        "reals and dates keep their exact bits",
        arguments: [
            0.0, -0.0, 1.0, -2.5, .infinity, -.infinity, 1e-300, -1e300,
            .leastNonzeroMagnitude, .greatestFiniteMagnitude, .nan, -.nan, Double(bitPattern: 0x7FF8_0000_DEAD_BEEF),
        ])
    func reals(_ number: Double) throws {
        for value in [PropertyListValue.real(number), .date(number)] {
            let bytes = BinaryPropertyList.encode(value)
            let decoded = try BinaryPropertyList.decode(bytes)
            switch (value, decoded) {
            case (.real, .real(let back)), (.date, .date(let back)):
                #expect(back.bitPattern == number.bitPattern)
            default:
                Issue.record("\(value) decoded as \(decoded)")
            }
        }
        #expect(BinaryPropertyList.encode(.real(number))[8] == 0x23)
        #expect(BinaryPropertyList.encode(.date(number))[8] == 0x33)
    }

    @Test(
        "long data and strings use extended lengths",
        arguments: [
            (14, "4E"), (15, "4F 10 0F"), (16, "4F 10 10"), (255, "4F 10 FF"), (256, "4F 11 0100"),
            (65535, "4F 11 FFFF"), (65536, "4F 12 00010000"), (70000, "4F 12 00011170"),
        ])
    func longValues(_ count: Int, _ dataHeader: String) throws {
        let data = PropertyListValue.data((0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let dataBytes = BinaryPropertyList.encode(data)
        let header = hex(dataHeader)
        #expect(Array(dataBytes[8 ..< 8 + header.count]) == header)
        #expect(try BinaryPropertyList.decode(dataBytes) == data)

        // An ASCII string has the same length field with marker 0x5_.
        let asciiString = PropertyListValue.string(String(repeating: "x", count: count))
        let asciiBytes = BinaryPropertyList.encode(asciiString)
        #expect(asciiBytes[8] == header[0] + 0x10)
        #expect(Array(asciiBytes[9 ..< 8 + header.count]) == Array(header.dropFirst()))
        #expect(try BinaryPropertyList.decode(asciiBytes) == asciiString)

        // A non-ASCII string counts UTF-16 code units, marker 0x6_.
        let wide = PropertyListValue.string(String(repeating: "é", count: count))
        let wideBytes = BinaryPropertyList.encode(wide)
        #expect(wideBytes[8] == header[0] + 0x20)
        #expect(Array(wideBytes[9 ..< 8 + header.count]) == Array(header.dropFirst()))
        #expect(try BinaryPropertyList.decode(wideBytes) == wide)

        // An array with that many elements.
        let array = PropertyListValue.array((0 ..< count).map { .integer(Int64($0)) })
        let arrayBytes = BinaryPropertyList.encode(array)
        #expect(arrayBytes[8] == header[0] + 0x60)
        #expect(try BinaryPropertyList.decode(arrayBytes) == array)
    }

    @Test(
        "non-ASCII strings round-trip as UTF-16",
        arguments: [
            "é", "日本語", "𝄞", "😀", "👩‍👩‍👧‍👦", "🇫🇷 flag", "a\u{0}b", "mixed ASCII and ünïcödé 🎉",
            "\u{FFFD}", "\u{10FFFF}", "e\u{301}",
        ])
    func unicode(_ text: String) throws {
        let value = PropertyListValue.string(text)
        let bytes = BinaryPropertyList.encode(value)
        let decoded = try BinaryPropertyList.decode(bytes)
        guard case .string(let back) = decoded else {
            Issue.record("decoded as \(decoded)")
            return
        }
        // Same scalars, not merely canonically equivalent.
        #expect(Array(back.unicodeScalars) == Array(text.unicodeScalars))
        let asciiOnly = text.utf8.allSatisfy { $0 < 0x80 }
        #expect(bytes[8] & 0xF0 == (asciiOnly ? 0x50 : 0x60))
        // As a dictionary key too.
        let dictionary = PropertyListValue.dictionary([text: .string(text)])
        #expect(try roundTrip(dictionary) == dictionary)
    }

    @Test("a surrogate pair is written as two big-endian UTF-16 units")
    func surrogatePairBytes() {
        // U+1D11E MUSICAL SYMBOL G CLEF = D834 DD1E
        #expect(Array(BinaryPropertyList.encode(.string("𝄞"))[8 ..< 13]) == hex("62 D834 DD1E"))
    }

    @Test(
        "reference and offset sizes follow plistlib's rule",
        arguments: [(1, 1, 1), (2, 1, 1), (255, 1, 2), (256, 2, 2), (65535, 2, 4), (65536, 4, 4)])
    func referenceSizes(_ objects: Int, _ refSize: UInt8, _ offsetSize: UInt8) throws {
        // An array of objects - 1 nulls is `objects` objects.
        let value: PropertyListValue = objects == 1 ? .null : .array(Array(repeating: .null, count: objects - 1))
        let bytes = BinaryPropertyList.encode(value)
        let trailer = Array(bytes.suffix(32))
        #expect(trailer[0 ..< 6].allSatisfy { $0 == 0 })
        #expect(trailer[6] == offsetSize)
        #expect(trailer[7] == refSize)
        #expect(Array(trailer[8 ..< 16]) == bigEndian(UInt64(objects), size: 8))
        #expect(Array(trailer[16 ..< 24]) == bigEndian(0, size: 8))
        #expect(try BinaryPropertyList.decode(bytes) == value)
    }

    @Test("hasMagic looks at the first eight bytes only")
    func magic() {
        #expect(BinaryPropertyList.hasMagic(Array("bplist00".utf8)))
        #expect(BinaryPropertyList.hasMagic(BinaryPropertyList.encode(sample)))
        #expect(!BinaryPropertyList.hasMagic(Array("bplist0".utf8)))
        #expect(!BinaryPropertyList.hasMagic(Array("bplist01".utf8)))
        #expect(!BinaryPropertyList.hasMagic(Array("<?xml version".utf8)))
        #expect(!BinaryPropertyList.hasMagic([]))
    }

    @Test("the reader accepts valid but non-minimal layouts")
    func nonMinimalLayouts() throws {
        // 8-byte offsets and 8-byte references for a tiny array.
        let wide = assemble([[0xA2] + bigEndian(1, size: 8) + bigEndian(2, size: 8), [0x10, 0x05], ascii("ab")],
                            refSize: 8, offsetSize: 8)
        #expect(try BinaryPropertyList.decode(wide) == .array([.integer(5), .string("ab")]))
        // An extended length below 15, an 8-byte length, a 2-byte int length.
        let extended = assemble([
            [0xA3, 1, 2, 3], [0x5F, 0x10, 0x03] + Array("abc".utf8),
            [0x4F, 0x13] + bigEndian(2, size: 8) + [9, 8], [0x6F, 0x11, 0x00, 0x01, 0x00, 0xE9],
        ])
        #expect(try BinaryPropertyList.decode(extended) == .array([.string("abc"), .data([9, 8]), .string("é")]))
        // Two table entries pointing at the same object, and a top object that is not the first.
        var shared = assemble([[0x10, 0x01], [0xA2, 0, 2], [0x10, 0x02]], top: 1)
        shared = withOffset(shared, index: 2, 8)
        #expect(try BinaryPropertyList.decode(shared) == .array([.integer(1), .integer(1)]))
        // float32 reals, 16-byte integers that fit in Int64, 1/2/4-byte ints unsigned.
        let numbers = assemble([
            [0xA7, 1, 2, 3, 4, 5, 6, 7],
            [0x22, 0x3F, 0xC0, 0x00, 0x00],
            [0x14] + bigEndian(0, size: 8) + bigEndian(UInt64(Int64.max), size: 8),
            [0x14] + bigEndian(UInt64.max, size: 8) + bigEndian(UInt64(bitPattern: -5), size: 8),
            [0x10, 0xFF], [0x11, 0xFF, 0xFF], [0x12, 0xFF, 0xFF, 0xFF, 0xFF],
            [0x13] + bigEndian(UInt64(bitPattern: -2), size: 8),
        ])
        #expect(try BinaryPropertyList.decode(numbers) == .array([
            .real(1.5), .integer(.max), .integer(-5), .integer(255), .integer(65535), .integer(4_294_967_295), .integer(-2),
        ]))
    }
}

// MARK: - Determinism

@Suite("Binary property list: determinism")
struct BinaryPropertyListDeterminismTests {
    @Test("insertion order does not change the bytes")
    func insertionOrder() {
        let keys = (0 ..< 200).map { "key \($0) \(String(repeating: "é", count: $0 % 3))" }
        var random = SplitMix64(state: 7)
        var encodings: Set<[UInt8]> = []
        for _ in 0 ..< 10 {
            var shuffled = keys
            for index in shuffled.indices.reversed() {
                shuffled.swapAt(index, random.below(index + 1))
            }
            var inner: [String: PropertyListValue] = [:]
            var outer: [String: PropertyListValue] = [:]
            for key in shuffled {
                inner[key] = .string(key)
                outer[key] = .integer(Int64(key.utf8.count))
            }
            outer["inner"] = .dictionary(inner)
            encodings.insert(BinaryPropertyList.encode(.dictionary(outer)))
        }
        #expect(encodings.count == 1)
    }

    @Test("keys are sorted by UTF-8 bytes (code points), not UTF-16 units")
    func keyOrder() throws {
        // plistlib's output for {"b": 1, "a": 2, "B": 3, "é": 4, "😀": 5, "\u{FFFD}": 6, "aa": 7, "": 8}.
        // In UTF-16 order "😀" (D83D DE00) would come before U+FFFD; in code point order it is last.
        let plistlib = hex("""
            62706c6973743030d80102030405060708090a0b0c0d0e0f10505142516152616151626100e961fffd62d83dde0010
            08100310021007100110041006100508191a1c1e212326292e30323436383a3c00000000000001010000000000000011
            0000000000000000000000000000003e
            """)
        let value = PropertyListValue.dictionary([
            "b": .integer(1), "a": .integer(2), "B": .integer(3), "é": .integer(4),
            "😀": .integer(5), "\u{FFFD}": .integer(6), "aa": .integer(7), "": .integer(8),
        ])
        #expect(BinaryPropertyList.encode(value) == plistlib)
        #expect(try BinaryPropertyList.decode(plistlib) == value)
    }
}

// MARK: - plistlib interoperability

/// Files written by CPython 3.11 plistlib (`plistlib.dumps(value, fmt=FMT_BINARY)`).
@Suite("Binary property list: plistlib vectors")
struct BinaryPropertyListPlistlibTests {
    @Test("small dictionary: our bytes equal plistlib's")
    func smallDictionary() throws {
        // {"int": 42, "str": "hello", "bool": True, "real": 3.5, "data": b"\\x00\\x01\\x02", "array": [1, "two", False]}
        let plistlib = hex("""
            62706c6973743030d6010203040506070b0c0d0e0f55617272617954626f6f6c546461746153696e74547265616c53
            737472a308090a10015374776f080943000102102a23400c0000000000005568656c6c6f08151b2025292e3236383c
            3d3e42444d0000000000000101000000000000001000000000000000000000000000000053
            """)
        let value = PropertyListValue.dictionary([
            "int": .integer(42), "str": .string("hello"), "bool": .boolean(true), "real": .real(3.5),
            "data": .data([0, 1, 2]), "array": .array([.integer(1), .string("two"), .boolean(false)]),
        ])
        #expect(BinaryPropertyList.encode(value) == plistlib)
        #expect(try BinaryPropertyList.decode(plistlib) == value)
    }

    @Test("nested dictionary with date, UTF-16, null and 2-byte offsets: our bytes equal plistlib's")
    func nestedDictionary() throws {
        // {"nested": {"x": -7, "y": [0.25, "ünïcode 😀"]}, "date": datetime(2020, 1, 2, 3, 4, 5),
        //  "blob": bytes(range(40)), "long": "L" * 300, "empty": {}, "list": [], "big": 2**40, "zé": None}
        let plistlib = hex(
            "62706c6973743030d80102030405060708090a0b0c0d0e0f165362696754626c6f625464617465"
                + "55656d707479546c697374546c6f6e67566e657374656462007a00e91300000100000000004f10"
                + "28000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f202122232425"
                + "26273341c1deca92800000d0a05f11012c" + String(repeating: "4c", count: 300)
                + "d2101112135178517913fffffffffffffff9a21415233fd00000000000006a00fc006e00ef0063"
                + "006f006400650020d83dde000000080019001d00220027002d00320037003e0043004c00770080"
                + "0081008201b201b701b901bb01c401c701d001e500000000000002010000000000000017000000"
                + "000000000000000000000001e6")
        let value = PropertyListValue.dictionary([
            "nested": .dictionary(["x": .integer(-7), "y": .array([.real(0.25), .string("ünïcode 😀")])]),
            "date": .date(599_627_045),
            "blob": .data(Array(0 ..< 40)),
            "long": .string(String(repeating: "L", count: 300)),
            "empty": .dictionary([:]),
            "list": .array([]),
            "big": .integer(1 << 40),
            "zé": .null,
        ])
        #expect(BinaryPropertyList.encode(value) == plistlib)
        #expect(try BinaryPropertyList.decode(plistlib) == value)
    }

    @Test("256 objects need 2-byte references: our bytes equal plistlib's")
    func twoByteReferences() throws {
        // list(range(255)): 256 objects, so plistlib uses 2-byte references
        // although the largest reference, 255, would fit in one byte.
        let plistlib = hex("""
            62706c6973743030af10ff000100020003000400050006000700080009000a000b000c000d000e000f00100011001200
            13001400150016001700180019001a001b001c001d001e001f0020002100220023002400250026002700280029002a00
            2b002c002d002e002f0030003100320033003400350036003700380039003a003b003c003d003e003f00400041004200
            43004400450046004700480049004a004b004c004d004e004f0050005100520053005400550056005700580059005a00
            5b005c005d005e005f0060006100620063006400650066006700680069006a006b006c006d006e006f00700071007200
            73007400750076007700780079007a007b007c007d007e007f0080008100820083008400850086008700880089008a00
            8b008c008d008e008f0090009100920093009400950096009700980099009a009b009c009d009e009f00a000a100a200
            a300a400a500a600a700a800a900aa00ab00ac00ad00ae00af00b000b100b200b300b400b500b600b700b800b900ba00
            bb00bc00bd00be00bf00c000c100c200c300c400c500c600c700c800c900ca00cb00cc00cd00ce00cf00d000d100d200
            d300d400d500d600d700d800d900da00db00dc00dd00de00df00e000e100e200e300e400e500e600e700e800e900ea00
            eb00ec00ed00ee00ef00f000f100f200f300f400f500f600f700f800f900fa00fb00fc00fd00fe00ff10001001100210
            03100410051006100710081009100a100b100c100d100e100f1010101110121013101410151016101710181019101a10
            1b101c101d101e101f1020102110221023102410251026102710281029102a102b102c102d102e102f10301031103210
            33103410351036103710381039103a103b103c103d103e103f1040104110421043104410451046104710481049104a10
            4b104c104d104e104f1050105110521053105410551056105710581059105a105b105c105d105e105f10601061106210
            63106410651066106710681069106a106b106c106d106e106f1070107110721073107410751076107710781079107a10
            7b107c107d107e107f1080108110821083108410851086108710881089108a108b108c108d108e108f10901091109210
            93109410951096109710981099109a109b109c109d109e109f10a010a110a210a310a410a510a610a710a810a910aa10
            ab10ac10ad10ae10af10b010b110b210b310b410b510b610b710b810b910ba10bb10bc10bd10be10bf10c010c110c210
            c310c410c510c610c710c810c910ca10cb10cc10cd10ce10cf10d010d110d210d310d410d510d610d710d810d910da10
            db10dc10dd10de10df10e010e110e210e310e410e510e610e710e810e910ea10eb10ec10ed10ee10ef10f010f110f210
            f310f410f510f610f710f810f910fa10fb10fc10fd10fe00080209020b020d020f02110213021502170219021b021d02
            1f02210223022502270229022b022d022f02310233023502370239023b023d023f02410243024502470249024b024d02
            4f02510253025502570259025b025d025f02610263026502670269026b026d026f02710273027502770279027b027d02
            7f02810283028502870289028b028d028f02910293029502970299029b029d029f02a102a302a502a702a902ab02ad02
            af02b102b302b502b702b902bb02bd02bf02c102c302c502c702c902cb02cd02cf02d102d302d502d702d902db02dd02
            df02e102e302e502e702e902eb02ed02ef02f102f302f502f702f902fb02fd02ff03010303030503070309030b030d03
            0f03110313031503170319031b031d031f03210323032503270329032b032d032f03310333033503370339033b033d03
            3f03410343034503470349034b034d034f03510353035503570359035b035d035f03610363036503670369036b036d03
            6f03710373037503770379037b037d037f03810383038503870389038b038d038f03910393039503970399039b039d03
            9f03a103a303a503a703a903ab03ad03af03b103b303b503b703b903bb03bd03bf03c103c303c503c703c903cb03cd03
            cf03d103d303d503d703d903db03dd03df03e103e303e503e703e903eb03ed03ef03f103f303f503f703f903fb03fd03
            ff0401040304050000000000000202000000000000010000000000000000000000000000000407
            """)
        let value = PropertyListValue.array((0 ..< 255).map { .integer(Int64($0)) })
        #expect(plistlib[plistlib.count - 25] == 2)
        #expect(BinaryPropertyList.encode(value) == plistlib)
        #expect(try BinaryPropertyList.decode(plistlib) == value)
    }

    @Test("the offset size covers the offset table's position, not just the last object's")
    func offsetSize() throws {
        // plistlib.dumps([bytes(250)]): the objects start at 8 and 10, but the table
        // starts at 263, so plistlib (like CoreFoundation) uses 2-byte offsets.
        let plistlib = hex("62706c6973743030a1014f10fa" + String(repeating: "00", count: 250)
            + "0008000a0000000000000201000000000000000200000000000000000000000000000107")
        let value = PropertyListValue.array([.data([UInt8](repeating: 0, count: 250))])
        #expect(BinaryPropertyList.encode(value) == plistlib)
        #expect(try BinaryPropertyList.decode(plistlib) == value)
    }

    @Test("plistlib's deduplicated objects decode; our undeduplicated bytes decode to the same value")
    func deduplication() throws {
        // {"a": "a", "b": [1, 1, "a", True, True], "c": 1}: plistlib writes "a" and 1 once each
        // and refers to them from several places.
        let plistlib = hex("""
            62706c6973743030d3010203010405516151625163a50505010606100109080f1113151b1d00000000000001010000
            0000000000070000000000000000000000000000001e
            """)
        let value = PropertyListValue.dictionary([
            "a": .string("a"),
            "b": .array([.integer(1), .integer(1), .string("a"), .boolean(true), .boolean(true)]),
            "c": .integer(1),
        ])
        #expect(try BinaryPropertyList.decode(plistlib) == value)
        let ours = BinaryPropertyList.encode(value)
        #expect(ours != plistlib)
        #expect(ours.count > plistlib.count)
        #expect(try BinaryPropertyList.decode(ours) == value)
        // Shared references count once per visit: 1 dict + 3 keys + 3 values + 5 elements.
        #expect(try BinaryPropertyList.decode(plistlib, limits: DecodingLimits(maxObjects: 12)) == value)
        expectRejected(plistlib, "more than 11 values", limits: DecodingLimits(maxObjects: 11))
    }

    @Test("plistlib folds -0.0 into 0.0 (it deduplicates by ==)")
    func negativeZero() throws {
        // plistlib.dumps([0.0, -0.0]): both elements refer to one 0.0 object.
        let plistlib = hex("""
            62706c6973743030a20101230000000000000000080b00000000000001010000000000000002000000000000000000
            00000000000014
            """)
        let decoded = try BinaryPropertyList.decode(plistlib)
        guard case .array(let items) = decoded, items.count == 2,
              case .real(let first) = items[0], case .real(let second) = items[1] else {
            Issue.record("decoded as \(decoded)")
            return
        }
        #expect(first.sign == .plus && second.sign == .plus && first == 0 && second == 0)
        // We keep the sign.
        let ours = try roundTrip(.array([.real(0.0), .real(-0.0)]))
        #expect(identical(ours, .array([.real(0.0), .real(-0.0)])))
    }

    @Test("plistlib's None is the 0x00 null token")
    func null() throws {
        let plistlib = hex("62706c697374303000080000000000000101000000000000000100000000000000000000000000000009")
        #expect(try BinaryPropertyList.decode(plistlib) == .null)
        #expect(BinaryPropertyList.encode(.null) == plistlib)
    }

    @Test("plistlib's 16-byte integers beyond Int64 are rejected")
    func hugeInteger() {
        // plistlib.dumps(2**63) writes marker 0x14 with 16 bytes.
        let plistlib = hex("""
            62706c69737430301400000000000000008000000000000000080000000000000101000000000000000100000000
            000000000000000000000019
            """)
        expectRejected(plistlib, "does not fit in 64 bits")
    }
}

// MARK: - Hostile input

@Suite("Binary property list: hostile input")
struct BinaryPropertyListHostileInputTests {
    @Test("every truncation of a valid file is rejected")
    func truncations() {
        for value in [sample, .integer(5), .array([.string("a"), .data([1, 2, 3])])] {
            let bytes = BinaryPropertyList.encode(value)
            for length in 0 ..< bytes.count {
                #expect(throws: PropertyListError.self, "prefix of \(length) bytes") {
                    try BinaryPropertyList.decode(Array(bytes.prefix(length)))
                }
            }
            #expect(throws: Never.self) { try BinaryPropertyList.decode(bytes) }
        }
    }

    @Test("random byte changes never crash; what decodes re-encodes faithfully")
    func mutations() throws {
        var random = SplitMix64(state: 0x5EED_0F_B1_15_7000)
        let seeds = [
            BinaryPropertyList.encode(sample),
            BinaryPropertyList.encode(.array([.string("x"), .array([.integer(300), .dictionary(["k": .null])])])),
        ]
        var accepted = 0
        var rejected = 0
        for round in 0 ..< 4000 {
            var bytes = seeds[round % seeds.count]
            for _ in 0 ... random.below(3) {
                // Half the changes hit the trailer and offset table, where the numbers are.
                let position = random.below(2) == 0
                    ? bytes.count - 1 - random.below(min(64, bytes.count))
                    : random.below(bytes.count)
                if random.below(2) == 0 {
                    bytes[position] ^= 1 << UInt8(random.below(8))
                } else {
                    bytes[position] = random.byte()
                }
            }
            let value: PropertyListValue
            do {
                value = try BinaryPropertyList.decode(bytes)
            } catch {
                rejected += 1
                #expect(!error.reason.isEmpty)
                continue
            }
            accepted += 1
            #expect(identical(try roundTrip(value), value), "round \(round)")
        }
        #expect(accepted > 100)
        #expect(rejected > 100)
    }

    @Test("random object bytes behind a valid trailer never crash")
    func randomObjects() throws {
        var random = SplitMix64(state: 42)
        var outcomes = (accepted: 0, rejected: 0)
        for _ in 0 ..< 3000 {
            let objects = (0 ... random.below(6)).map { _ in
                (0 ... random.below(12)).map { _ in
                    // Markers with small low nibbles reach more of the reader.
                    random.below(3) == 0 ? UInt8(random.below(16)) << 4 | UInt8(random.below(4)) : random.byte()
                }
            }
            let bytes = assemble(objects, top: UInt64(random.below(objects.count)))
            let value: PropertyListValue
            do {
                value = try BinaryPropertyList.decode(bytes)
            } catch {
                outcomes.rejected += 1
                continue
            }
            outcomes.accepted += 1
            #expect(identical(try roundTrip(value), value))
        }
        #expect(outcomes.accepted > 0)
        #expect(outcomes.rejected > 0)
    }

    static let valid = assemble([[0xA1, 1], [0x10, 0x05]])

    @Test("header and size checks")
    func header() {
        expectRejected([], "too short")
        expectRejected(Array("bplist".utf8), "too short")
        expectRejected(Array("<?xml version=\"1.0\"?>".utf8), "magic")
        expectRejected(Array("xplist00".utf8) + Self.valid.dropFirst(8), "magic")
        expectRejected(Array("bplist01".utf8) + Self.valid.dropFirst(8), "version")
        expectRejected(Array("bplist00".utf8), "too short")
        expectRejected(Array(Self.valid.prefix(41)), "too short")
        #expect(throws: Never.self) { try BinaryPropertyList.decode(Self.valid) }
    }

    @Test(
        "trailer nonsense is rejected",
        arguments: [
            (BinaryPropertyListTrailerField.offsetIntSize, UInt64(0), "offset size 0"),
            (.offsetIntSize, 9, "offset size 9"),
            (.offsetIntSize, 255, "offset size 255"),
            (.objectRefSize, 0, "reference size 0"),
            (.objectRefSize, 9, "reference size 9"),
            (.numObjects, 0, "no objects"),
            (.numObjects, 9, "object count 9"),
            (.numObjects, UInt64.max, "object count"),
            (.numObjects, 1 << 61, "object count"),
            (.topObject, 2, "top object 2 is out of range"),
            (.topObject, UInt64.max, "top object"),
            (.offsetTableOffset, 0, "no room for objects"),
            (.offsetTableOffset, 8, "no room for objects"),
            (.offsetTableOffset, 13, "runs into the trailer"),
            (.offsetTableOffset, 100, "runs into the trailer"),
            (.offsetTableOffset, UInt64.max, "runs into the trailer"),
            (.offsetTableOffset, UInt64.max - 10, "runs into the trailer"),
        ])
    func trailer(_ field: BinaryPropertyListTrailerField, _ value: UInt64, _ fragment: String) {
        expectRejected(withTrailer(Self.valid, field, value), fragment)
    }

    @Test("object offsets must point into the object area")
    func objectOffsets() {
        // Offset 0 points at the magic ("b" = 0x62 would read as a UTF-16 string).
        expectRejected(withOffset(Self.valid, index: 1, 0), "outside the object area")
        expectRejected(withOffset(Self.valid, index: 0, 7), "outside the object area")
        // The offset table starts right after the objects, at 8 + 2 + 2 = 12.
        expectRejected(withOffset(Self.valid, index: 1, 12), "outside the object area")
        expectRejected(withOffset(Self.valid, index: 1, 255), "outside the object area")
        // An object may not run into the offset table either.
        expectRejected(assemble([[0xA1, 1], [0x13, 0, 0]]), "runs past the end of the objects")
        expectRejected(assemble([[0x23, 0, 0, 0]]), "runs past the end of the objects")
    }

    @Test("object references must be in range")
    func references() {
        expectRejected(assemble([[0xA1, 5], [0x10, 0x05]]), "object reference 5 is out of range (2 objects)")
        expectRejected(assemble([[0xD1, 1, 9], ascii("k")]), "object reference 9 is out of range (2 objects)")
        expectRejected(assemble([[0xD1, 9, 1], ascii("k")]), "object reference 9 is out of range (2 objects)")
        expectRejected(
            assemble([[0xA1, 0, 0, 0, 0, 0, 0, 0, 2], [0x10, 0x05]], refSize: 8),
            "object reference 2 is out of range")
        expectRejected(
            assemble([[0xA1, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF], [0x10, 0x05]], refSize: 8),
            "object reference 18446744073709551615 is out of range")
    }

    @Test("reference cycles are rejected")
    func cycles() throws {
        expectRejected(assemble([[0xA1, 0]]), "reference cycle")
        expectRejected(assemble([[0xA1, 1], [0xA1, 2], [0xA1, 0]]), "reference cycle")
        expectRejected(assemble([[0xD1, 1, 0], ascii("k")]), "reference cycle")
        expectRejected(assemble([[0xA2, 1, 2], [0x10, 1], [0xD1, 3, 4], ascii("k"), [0xA1, 2]]), "reference cycle")
        // The same object twice in a row is sharing, not a cycle.
        let shared = assemble([[0xA2, 1, 1], [0xA1, 2], [0x10, 7]])
        #expect(try BinaryPropertyList.decode(shared) == .array([.array([.integer(7)]), .array([.integer(7)])]))
    }

    @Test("lengths that overflow or run past the end are rejected")
    func lengths() {
        expectRejected(assemble([[0x4F, 0x13] + bigEndian(UInt64(Int64.max), size: 8)]), "larger than the file")
        expectRejected(assemble([[0x4F, 0x13] + bigEndian(UInt64.max, size: 8)]), "larger than the file")
        expectRejected(assemble([[0x4F, 0x10, 30, 1, 2, 3]]), "data of 30 bytes")
        expectRejected(assemble([[0x45, 1, 2, 3]]), "data of 5 bytes")
        expectRejected(assemble([[0x5F, 0x11, 0x00, 0x20] + Array("short".utf8)]), "ASCII string of 32 bytes")
        expectRejected(assemble([[0x63, 0, 0x41, 0, 0x42]]), "UTF-16 string of 3 code units")
        // Counts whose byte size would overflow when multiplied.
        expectRejected(assemble([[0x6F, 0x13] + bigEndian(1 << 63, size: 8)]), "larger than the file")
        expectRejected(assemble([[0x6F, 0x12, 0x80, 0, 0, 0, 0, 0x41]]), "larger than the file")
        expectRejected(assemble([[0xAF, 0x13] + bigEndian(1 << 62, size: 8), [0x10, 1]], refSize: 8), "larger than the file")
        expectRejected(assemble([[0x10, 1], [0xAF, 0x10, 20, 0, 0]], top: 1), "array of 20 elements")
        expectRejected(assemble([[0x10, 1], [0xDF, 0x10, 20, 0, 0]], top: 1), "dictionary of 20 elements")
        expectRejected(assemble([ascii("k"), [0xD2, 0, 0, 0]], top: 1), "dictionary of 2 elements")
        // The length must be a 1, 2, 4 or 8-byte integer object.
        expectRejected(assemble([[0x4F, 0x23] + bigEndian(0, size: 8)]), "is not a 1, 2, 4 or 8-byte integer")
        expectRejected(assemble([[0x4F, 0x14] + bigEndian(0, size: 16)]), "is not a 1, 2, 4 or 8-byte integer")
        expectRejected(assemble([[0x4F, 0x00, 0x01]]), "is not a 1, 2, 4 or 8-byte integer")
        expectRejected(assemble([[0x4F, 0x12, 0x00]]), "runs past the end of the objects")
        expectRejected(assemble([[0x4F]]), "runs past the end of the objects")
    }

    @Test("dictionary keys must be distinct strings")
    func keys() throws {
        expectRejected(assemble([[0xD1, 1, 1], [0x10, 5]]), "not a string")
        expectRejected(assemble([[0xD1, 0, 0]]), "not a string")
        expectRejected(assemble([[0xD1, 1, 2], [0xA0], [0x10, 5]]), "not a string")
        expectRejected(assemble([[0xD1, 1, 2], [0x00], [0x10, 5]]), "not a string")
        // A key already decoded as a value elsewhere.
        expectRejected(assemble([[0xA2, 1, 2], [0x10, 5], [0xD1, 1, 1]]), "not a string")
        expectRejected(assemble([[0xD2, 1, 2, 3, 3], ascii("a"), ascii("a"), [0x09]]), "has the key \"a\" twice")
        // Canonically equivalent keys are equal Swift strings: U+00E9 vs e + U+0301.
        expectRejected(
            assemble([[0xD2, 1, 2, 3, 3], utf16([0x00E9]), utf16([0x0065, 0x0301]), [0x09]]), "twice")
        // The same key object twice is a duplicate too.
        expectRejected(assemble([[0xD2, 1, 1, 2, 2], ascii("a"), [0x09]]), "twice")
        // A key object shared with a string value is fine (plistlib does this).
        let shared = assemble([[0xD1, 1, 1], ascii("same")])
        #expect(try BinaryPropertyList.decode(shared) == .dictionary(["same": .string("same")]))
    }

    @Test("strings must be valid")
    func strings() throws {
        expectRejected(assemble([utf16([0xD800])]), "unpaired high surrogate 0xD800")
        expectRejected(assemble([utf16([0xDBFF, 0x0041])]), "unpaired high surrogate 0xDBFF")
        expectRejected(assemble([utf16([0x0041, 0xDC00])]), "unpaired low surrogate 0xDC00")
        expectRejected(assemble([utf16([0xDE00, 0xD83D])]), "unpaired low surrogate")
        expectRejected(assemble([[0x53, 0x41, 0x80, 0x42]]), "byte 0x80 or above")
        expectRejected(assemble([[0x51, 0xFF]]), "byte 0x80 or above")
        expectRejected(assemble([[0xD1, 1, 1], [0x51, 0xC3]]), "byte 0x80 or above")
        #expect(try BinaryPropertyList.decode(assemble([utf16([0xD83D, 0xDE00])])) == .string("😀"))
    }

    @Test(
        "unknown and unsupported markers are rejected",
        arguments: [
            ([UInt8]([0x80, 0x01]), "UID object"),
            ([0x81, 0x00, 0x01], "UID object"),
            ([0xC1, 0x00], "set object"),
            ([0xB0], "set object"),
            ([0x0F], "unknown marker 0x0F"),
            ([0x01], "unknown marker 0x01"),
            ([0x0C], "unknown marker 0x0C"),
            ([0x0E], "unknown marker 0x0E"),
            ([0x15] + [UInt8](repeating: 0, count: 32), "integer of 32 bytes"),
            ([0x1F, 0x00], "integer of 32768 bytes"),
            ([0x21, 0x00, 0x00], "real of 2 bytes"),
            ([0x24] + [UInt8](repeating: 0, count: 16), "real of 16 bytes"),
            ([0x30, 0x00], "unknown marker 0x30"),
            ([0x70, 0x00], "unknown marker 0x70"),
            ([0x90, 0x00], "unknown marker 0x90"),
            ([0xE0], "unknown marker 0xE0"),
            ([0xF0], "unknown marker 0xF0"),
        ])
    func markers(_ object: [UInt8], _ fragment: String) {
        expectRejected(assemble([object]), fragment)
        // Also inside a container.
        expectRejected(assemble([[0xA1, 1], object]), fragment)
    }

    @Test("16-byte integers must fit in Int64")
    func sixteenByteIntegers() {
        expectRejected(assemble([[0x14] + bigEndian(1, size: 8) + bigEndian(0, size: 8)]), "does not fit")
        expectRejected(assemble([[0x14] + bigEndian(0, size: 8) + bigEndian(1 << 63, size: 8)]), "does not fit")
        expectRejected(assemble([[0x14] + bigEndian(UInt64.max, size: 8) + bigEndian(1, size: 8)]), "does not fit")
        expectRejected(assemble([[0x14] + bigEndian(UInt64.max - 1, size: 8) + bigEndian(1 << 63, size: 8)]), "does not fit")
    }
}

// MARK: - Limits

@Suite("Binary property list: limits")
struct BinaryPropertyListLimitTests {
    /// `levels` arrays, each holding two references to the next; the last holds two integers.
    static func sharedReferenceBomb(levels: Int) -> [UInt8] {
        var objects: [[UInt8]] = (0 ..< levels).map { [0xA2, UInt8($0 + 1), UInt8($0 + 1)] }
        objects.append([0x10, 0x2A])
        return assemble(objects)
    }

    @Test("the shared reference bomb is stopped after work proportional to its size")
    func bomb() {
        let bytes = Self.sharedReferenceBomb(levels: 40)
        #expect(bytes.count < 250)
        expectRejected(bytes, "more than 1048576 values", limits: DecodingLimits(maxDepth: 64))
        let (result, steps) = BinaryPropertyList.decodeCountingSteps(bytes, limits: DecodingLimits(maxDepth: 64))
        if case .success = result { Issue.record("decoded") }
        #expect(steps <= bytes.count)
    }

    @Test("every visit of a shared object counts")
    func sharedCounts() throws {
        // 10 levels decode to 2^11 - 1 values.
        let bytes = Self.sharedReferenceBomb(levels: 10)
        let value = try BinaryPropertyList.decode(bytes, limits: DecodingLimits(maxObjects: 2047))
        var expected = PropertyListValue.integer(42)
        for _ in 0 ..< 10 { expected = .array([expected, expected]) }
        #expect(value == expected)
        expectRejected(bytes, "more than 2046 values", limits: DecodingLimits(maxObjects: 2046))
    }

    @Test("maxObjects counts containers, keys and values")
    func objectCount() throws {
        let value = PropertyListValue.dictionary(["a": .integer(1), "b": .array([.null, .null])])
        // dict + 2 keys + int + array + 2 nulls = 7
        let bytes = BinaryPropertyList.encode(value)
        #expect(try BinaryPropertyList.decode(bytes, limits: DecodingLimits(maxObjects: 7)) == value)
        expectRejected(bytes, "more than 6 values", limits: DecodingLimits(maxObjects: 6))
        expectRejected(bytes, "more than 0 values", limits: DecodingLimits(maxObjects: 0))
    }

    @Test("64 nested containers decode, 65 do not")
    func depth() throws {
        let ok = nestedArrays(64)
        #expect(try roundTrip(ok) == ok)
        expectRejected(BinaryPropertyList.encode(nestedArrays(65)), "nested deeper than 64 levels")

        var dictionaries = PropertyListValue.null
        for _ in 0 ..< 65 { dictionaries = .dictionary(["k": dictionaries]) }
        expectRejected(BinaryPropertyList.encode(dictionaries), "nested deeper than 64 levels")

        let three = BinaryPropertyList.encode(nestedArrays(3))
        #expect(throws: Never.self) { try BinaryPropertyList.decode(three, limits: DecodingLimits(maxDepth: 3)) }
        expectRejected(three, "nested deeper than 2 levels", limits: DecodingLimits(maxDepth: 2))
        // Scalars at the top need no depth at all.
        #expect(try BinaryPropertyList.decode(BinaryPropertyList.encode(.integer(1)), limits: DecodingLimits(maxDepth: 0)) == .integer(1))
        expectRejected(BinaryPropertyList.encode(.array([])), "nested deeper than 0 levels", limits: DecodingLimits(maxDepth: 0))
    }

    @Test("a shared subtree is depth-checked wherever it is referenced")
    func sharedDepth() throws {
        // Object 1 is 3 nested arrays. The root references it directly (depth 2..4)
        // and through objects 4, 5 (depth 4..6).
        let objects: [[UInt8]] = [
            [0xA2, 1, 4], [0xA1, 2], [0xA1, 3], [0xA0], [0xA1, 5], [0xA1, 1],
        ]
        let bytes = assemble(objects)
        let inner = PropertyListValue.array([.array([.array([])])])
        let expected = PropertyListValue.array([inner, .array([.array([inner])])])
        #expect(try BinaryPropertyList.decode(bytes, limits: DecodingLimits(maxDepth: 6)) == expected)
        expectRejected(bytes, "nested deeper than 5 levels", limits: DecodingLimits(maxDepth: 5))
    }

    @Test("decoding is linear: steps proportional to the input")
    func linear() throws {
        // A userInfo-sized dictionary of about 3 KB.
        var dictionary: [String: PropertyListValue] = [:]
        for index in 0 ..< 60 {
            dictionary["key\(index)"] = index.isMultiple(of: 2)
                ? .string("value number \(index) with some text")
                : .array([.integer(Int64(index)), .real(Double(index) / 3), .boolean(true)])
        }
        let small = BinaryPropertyList.encode(.dictionary(dictionary))
        #expect((2000 ... 4000).contains(small.count))
        let big = BinaryPropertyList.encode(.array((0 ..< 200_000).map { .string("s\($0)") }))
        for bytes in [small, big] {
            let (result, steps) = BinaryPropertyList.decodeCountingSteps(bytes)
            #expect(throws: Never.self) { try result.get() }
            // One step per reference and one per object.
            #expect(steps <= bytes.count / 2)
        }
    }

    @Test("errors describe themselves")
    func errorDescription() {
        do {
            _ = try BinaryPropertyList.decode(assemble([[0xA1, 9]]))
            Issue.record("decoded")
        } catch {
            #expect(error.reason == "object reference 9 is out of range (1 objects)")
            #expect(error.description.contains(error.reason))
            #expect(error == PropertyListError(reason: error.reason))
        }
    }
}
