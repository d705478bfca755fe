// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
@testable import HandoffModel
import Testing

/// Builds bytes from a hex string (test vectors made with CPython's plistlib).
func bytes(hex: String) -> [UInt8] {
    var out: [UInt8] = []
    var it = hex.makeIterator()
    while let hi = it.next(), let lo = it.next() {
        out.append(UInt8(String([hi, lo]), radix: 16)!)
    }
    return out
}

/// A userInfo holding every allowed value type, nested.
let everyType: UserInfo = [
    "null": .null,
    "yes": .boolean(true),
    "no": .boolean(false),
    "int": .integer(-42),
    "big": .integer(Int64.max),
    "real": .real(3.25),
    "text": .string("Grüße 👋"),
    "data": .data([0, 1, 2, 255]),
    "date": .date(Timestamp(timeIntervalSince1970: 1_700_000_000.5)),
    "url": .url(URLReference(string: "https://example.com/a?b=c")!),
    "list": .array([.integer(1), .string("two"), .array([.real(3)])]),
    "dict": .dictionary(["inner": .dictionary(["deep": .boolean(true)])]),
    "set": .set([.string("a"), .string("b"), .integer(3)]),
]

/// A value nested `depth` containers deep.
func nested(depth: Int) -> UserInfoValue {
    var v = UserInfoValue.integer(0)
    for _ in 0..<depth { v = .array([v]) }
    return v
}

/// Info.plist written by CPython's plistlib in binary form: bundle
/// com.example.shapes, team A1B2C3D4E5, two activity types and unrelated keys.
let binaryInfoPlist = bytes(hex: "62706c6973743030d60102030405060708090a0b0e5f1012434642756e646c654964656e7469666965725c434642756e646c654e616d655f101548616e646f66665465616d4964656e7469666965725f10124c5352657175697265734950686f6e654f535f10134e5355736572416374697669747954797065735f101c554952657175697265644465766963654361706162696c69746965735f1012636f6d2e6578616d706c652e736861706573565368617065735a4131423243334434453509a20c0d5f101f636f6d2e6578616d706c652e7368617065732e6372656174652d73686170655f101d636f6d2e6578616d706c652e7368617065732e656469742d7368617065a10f5561726d763700080015002a0037004f0064007a009900ae00b500c000c100c400e601060108000000000000020100000000000000100000000000000000000000000000010e")

func xmlInfoPlist(_ body: String) -> [UInt8] {
    Array("""
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0">
    <dict>
    \(body)
    </dict>
    </plist>
    """.utf8)
}

/// Expects `body` to throw a HandoffError with `code`.
func expectCode(_ code: HandoffError.Code, sourceLocation: SourceLocation = #_sourceLocation,
                _ body: () throws(HandoffError) -> Void) {
    do {
        try body()
        Issue.record("accepted; expected \(code.name)", sourceLocation: sourceLocation)
    } catch {
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
    }
}
