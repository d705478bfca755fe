// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// Text cut to a byte limit (docs/PROTOCOL.md §5 "Sending", §7 ERROR): at
/// a character boundary, so what arrives is valid UTF-8 and reads back.
@Suite struct TextCutTests {
    @Test func cutsAtCharacterBoundaries() {
        #expect(truncateUTF8("abc", to: 3) == "abc")
        #expect(truncateUTF8("abcd", to: 3) == "abc")
        #expect(truncateUTF8("aé", to: 2) == "a")  // é is 2 bytes: not split
        #expect(truncateUTF8("a😀", to: 4) == "a")  // 4 bytes
        #expect(truncateUTF8("ae\u{301}x", to: 3) == "a")  // e + combining acute is one character
        #expect(truncateUTF8(String(repeating: "é", count: 200), to: 256).utf8.count == 256)
    }

    /// An ERROR whose message is over 1024 bytes used to be cut inside a
    /// character, so the receiver read a malformed frame (4608) instead of
    /// the sender's code.
    @Test func aLongErrorMessageStillReadsAsTheSendersError() throws {
        let message = String(repeating: "a", count: 1023) + "é and more"
        let frame = ExchangeMessage.error(code: 4611, message: message).frame
        #expect(frame.payload.count == 4 + 1023)
        #expect(try ExchangeMessage(frame) == .error(code: 4611, message: String(repeating: "a", count: 1023)))
        let exact = String(repeating: "é", count: 512)
        #expect(try ExchangeMessage(ExchangeMessage.error(code: 4608, message: exact + "x").frame)
                == .error(code: 4608, message: exact))
    }
}
