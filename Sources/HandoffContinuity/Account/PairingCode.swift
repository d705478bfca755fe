// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The pairing code: an account key written for people.
///
/// The 36 bytes `key || SHA-256(key)[0..<4]` (288 bits) in Crockford base32,
/// most significant bit first, the last 5-bit group padded with two zero
/// bits: 58 characters, uppercase, in groups of five joined by "-" (the last
/// group has three). Reading forgives what people do: case, dashes, spaces
/// and tabs are ignored, O reads as 0, I and L as 1.
enum PairingCode {
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)
    static let checksumSize = 4
    static let payloadSize = AccountKey.size + checksumSize  // 36 bytes
    static let length = (payloadSize * 8 + 4) / 5  // 58 characters
    static let groupSize = 5

    static func encode(_ key: [UInt8]) -> String {
        let payload = key + Crypto.sha256(key)[0..<checksumSize]
        var symbols: [UInt8] = []
        symbols.reserveCapacity(length + length / groupSize)
        var buffer: UInt32 = 0, bits = 0
        func emit(_ value: UInt32) {
            if symbols.count % (groupSize + 1) == groupSize { symbols.append(UInt8(ascii: "-")) }
            symbols.append(alphabet[Int(value & 0x1f)])
        }
        for byte in payload {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                emit(buffer >> UInt32(bits))
            }
            buffer &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { emit(buffer << UInt32(5 - bits)) }
        return String(decoding: symbols, as: UTF8.self)
    }

    /// The account key in `code`, or `.invalidValue` saying what is wrong.
    static func decode(_ code: String) throws(HandoffError) -> [UInt8] {
        var values: [UInt8] = []
        values.reserveCapacity(length)
        for (offset, character) in code.enumerated() {
            if character == "-" || character == " " || character == "\t" { continue }
            guard let value = Self.value(of: character) else {
                throw HandoffError(
                    .invalidValue,
                    "the pairing code cannot contain \(Self.describe(character)) (character \(offset + 1)): "
                        + "pairing codes use the digits 0-9 and the letters A-Z except U; check that character")
            }
            values.append(value)
        }
        guard values.count == length else {
            throw HandoffError(
                .invalidValue, "a pairing code has \(length) letters and digits; this one has \(values.count)")
        }
        var payload: [UInt8] = []
        payload.reserveCapacity(payloadSize)
        var buffer: UInt32 = 0, bits = 0
        for value in values {
            buffer = buffer << 5 | UInt32(value)
            bits += 5
            if bits >= 8 {
                bits -= 8
                payload.append(UInt8(truncatingIfNeeded: buffer >> UInt32(bits)))
                buffer &= (1 << UInt32(bits)) - 1
            }
        }
        let key = Array(payload[0..<AccountKey.size])
        // `buffer` now holds the padding bits, which must be zero.
        guard buffer == 0, payload.count == payloadSize,
            Array(payload[AccountKey.size...]) == Array(Crypto.sha256(key)[0..<checksumSize])
        else {
            throw HandoffError(
                .invalidValue,
                "the pairing code has a typo (its checksum does not match): compare it group by group")
        }
        return key
    }

    /// The 5-bit value of one typed character, nil if it is none.
    private static func value(of character: Character) -> UInt8? {
        guard let ascii = character.asciiValue else { return nil }
        var upper = ascii
        if upper >= UInt8(ascii: "a") && upper <= UInt8(ascii: "z") { upper -= 0x20 }
        switch upper {
        case UInt8(ascii: "O"): upper = UInt8(ascii: "0")
        case UInt8(ascii: "I"), UInt8(ascii: "L"): upper = UInt8(ascii: "1")
        default: break
        }
        guard let index = alphabet.firstIndex(of: upper) else { return nil }
        return UInt8(index)
    }

    /// A character named for an error message: printable ASCII in quotes,
    /// anything else as its code points.
    private static func describe(_ character: Character) -> String {
        if let ascii = character.asciiValue, ascii >= 0x21, ascii < 0x7f {
            return "\"\(character)\""
        }
        return character.unicodeScalars.map { "U+" + AccountEncoding.hex4($0.value) }.joined(separator: " ")
    }
}
