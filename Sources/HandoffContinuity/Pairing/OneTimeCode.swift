// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The code a person carries from one device to the other for a pairing
/// without a comparison (docs/PROTOCOL.md §9 "One-time code"): seven random
/// digits and a Damm check digit, shown "1234-5678". It keys SPAKE2; it is
/// no account secret and serves one run.
public struct OneTimeCode: Sendable, Equatable, CustomStringConvertible {
    /// The eight ASCII digits.
    public let digits: String

    /// A new code: seven digits uniform below 10⁷ (rejection sampling on
    /// OpenSSL's random bytes), then the check digit.
    public static func generate() -> OneTimeCode {
        while true {
            let bytes = Crypto.randomBytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            // 429 · 10⁷ is the largest multiple of 10⁷ below 2³².
            guard value < 4_290_000_000 else { continue }
            let seven = String(value % 10_000_000)
            let body = String(repeating: "0", count: 7 - seven.count) + seven
            return OneTimeCode(checked: body + String(damm(body)))
        }
    }

    /// The code as typed: spaces and "-" ignored. Throws `.invalidArgument`
    /// for anything but eight digits with a valid check digit, saying
    /// which, so a typo is caught here rather than spending the run.
    public init(typed text: String) throws(HandoffError) {
        let kept = text.filter { $0 != " " && $0 != "-" }
        guard kept.count == 8, kept.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw HandoffError(.invalidArgument, "a pairing code is eight digits, like 1234-5678 (\"\(text)\" is not)")
        }
        guard Self.damm(kept) == 0 else {
            throw HandoffError(.invalidArgument, "the code \(text) has a typo (its check digit does not match): check it on the other device")
        }
        self.digits = kept
    }

    private init(checked digits: String) {
        self.digits = digits
    }

    /// "1234-5678".
    public var description: String { "\(digits.prefix(4))-\(digits.suffix(4))" }

    /// SPAKE2's w before reduction mod n: HKDF-SHA256 over the digits, 48
    /// bytes.
    var password: [UInt8] {
        Crypto.hkdfSHA256(key: Array(digits.utf8), salt: Array("libhandoff pair code v1".utf8), info: Array("w".utf8), length: 48)
    }

    /// Damm's algorithm: the interim digit after `digits` (0 when a string
    /// ending in its check digit is valid). Its quasigroup catches every
    /// single-digit error and every adjacent transposition.
    static func damm(_ digits: some StringProtocol) -> Int {
        var interim = 0
        for character in digits.utf8 { interim = table[interim * 10 + Int(character - UInt8(ascii: "0"))] }
        return interim
    }

    static let table: [Int] = [
        0, 3, 1, 7, 5, 9, 8, 6, 4, 2,
        7, 0, 9, 2, 1, 5, 4, 8, 6, 3,
        4, 2, 0, 6, 8, 7, 1, 3, 5, 9,
        1, 7, 5, 0, 9, 8, 3, 4, 2, 6,
        6, 1, 2, 3, 0, 4, 5, 9, 7, 8,
        3, 6, 7, 4, 2, 0, 9, 5, 8, 1,
        5, 8, 6, 9, 7, 2, 0, 1, 3, 4,
        8, 9, 4, 5, 3, 6, 2, 0, 1, 7,
        9, 4, 3, 8, 6, 1, 7, 2, 0, 5,
        2, 5, 8, 1, 4, 3, 6, 7, 9, 0,
    ]
}
