// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing
@testable import HandoffContinuity
import HandoffTestSupport

@Suite struct AccountKeyTests {
    typealias F = AccountFixtures

    @Test func keyIs32Bytes() throws {
        for count in [0, 16, 31, 33, 64] {
            let error = #expect(throws: HandoffError.self) { try AccountKey(bytes: [UInt8](repeating: 7, count: count)) }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains("this one has \(count)") == true)
        }
        let key = try AccountKey(bytes: [UInt8](repeating: 7, count: 32))
        #expect(key.bytes == [UInt8](repeating: 7, count: 32))
        #expect(AccountKey.size == 32)
    }

    @Test func generatedKeysAreRandom() {
        let keys = (0..<20).map { _ in AccountKey.generate() }
        #expect(keys.allSatisfy { $0.bytes.count == 32 })
        #expect(Set(keys.map(\.bytes)).count == 20)
    }

    @Test func equalityComparesBytes() throws {
        #expect(F.key(seed: 1) == F.key(seed: 1))
        #expect(F.key(seed: 1) != F.key(seed: 2))
        var bytes = F.key(seed: 1).bytes
        bytes[31] ^= 1
        #expect(try AccountKey(bytes: bytes) != F.key(seed: 1))
    }

    /// The documented vectors (docs/PROTOCOL.md, "Account"): HKDF-SHA256,
    /// salt "libhandoff v1", account key 00 01 02 ... 1f.
    @Test func derivedKeysMatchTheDocumentedVectors() {
        let derived = F.sequentialKey.derived
        #expect(F.hex(derived.beaconKey) == "077d7477a99849fe6604ecdaaa4aba891b7fdc9e483ad2a58e5a2602b3689b3c")
        #expect(F.hex(derived.channelPSK) == "9386ddc336c8eab1b9dab96302f4403c48cfefbe081bd43e1c5f975290092ac4")
        #expect(derived.accountID == "f95a8593f326c9d2")
        #expect(F.sequentialKey.pairingCode == "000G4-0R40M-30E20-9185G-R38E1-W8124-GK2GA-HC5RR-34D1P-70X3R-FP63E-D54")
    }

    @Test func derivedKeysAreDeterministicAndDistinct() {
        let key = F.key(seed: 3)
        let a = key.derived, b = key.derived
        #expect(a == b)
        #expect(DerivedKeys(accountKey: key.bytes) == a)
        #expect(a.beaconKey.count == 32 && a.channelPSK.count == 32)
        #expect(a.beaconKey != a.channelPSK)
        #expect(a.beaconKey != key.bytes && a.channelPSK != key.bytes)
        #expect(a.accountID.utf8.count == 16)
        #expect(a.accountID.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(!F.hex(a.beaconKey).hasPrefix(a.accountID) && !F.hex(a.channelPSK).hasPrefix(a.accountID))
        // Each output is HKDF with its own label.
        #expect(a.beaconKey == Crypto.hkdfSHA256(key: key.bytes, salt: Array("libhandoff v1".utf8), info: Array("beacon key".utf8), length: 32))
        #expect(a.channelPSK == Crypto.hkdfSHA256(key: key.bytes, salt: Array("libhandoff v1".utf8), info: Array("channel psk".utf8), length: 32))
        let other = F.key(seed: 4).derived
        #expect(other.beaconKey != a.beaconKey && other.channelPSK != a.channelPSK && other.accountID != a.accountID)
    }

    @Test func descriptionNeverShowsTheKey() {
        let key = F.sequentialKey
        let texts = ["\(key)", String(describing: key), String(reflecting: key), "\(key.derived)",
                     String(reflecting: key.derived), { var s = ""; dump(key, to: &s); dump(key.derived, to: &s); return s }()]
        let code = key.pairingCode
        let secrets = [F.hex(key.bytes), F.hex(key.derived.beaconKey), F.hex(key.derived.channelPSK),
                       code, code.replacingDashes, "\(key.bytes)"]
        for text in texts {
            #expect(text.contains("f95a8593f326c9d2"), "\(text) should name the account ID")
            for secret in secrets {
                #expect(!text.contains(secret), "\(text) shows key material")
            }
        }
    }
}

@Suite struct AccountPairingCodeTests {
    typealias F = AccountFixtures
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    @Test func codeShape() {
        let code = F.key(seed: 9).pairingCode
        let groups = code.split(separator: "-", omittingEmptySubsequences: false)
        #expect(groups.count == 12)
        #expect(groups.dropLast().allSatisfy { $0.count == 5 })
        #expect(groups.last?.count == 3)
        #expect(code.replacingDashes.count == 58)
        #expect(code.replacingDashes.allSatisfy { Self.alphabet.contains($0) })
    }

    @Test func roundTripsRandomKeys() throws {
        for _ in 0..<200 {
            let key = AccountKey.generate()
            #expect(try AccountKey(pairingCode: key.pairingCode) == key)
        }
        // The all-zero and all-one keys, the edges of the bit packing.
        for byte: UInt8 in [0x00, 0xff] {
            let key = try AccountKey(bytes: [UInt8](repeating: byte, count: 32))
            #expect(try AccountKey(pairingCode: key.pairingCode) == key)
        }
    }

    @Test func readingIsForgiving() throws {
        let key = F.sequentialKey
        let code = key.pairingCode  // 000G4-0R40M-30E20-9185G-R38E1-W8124-GK2GA-HC5RR-34D1P-70X3R-FP63E-D54
        let bare = code.replacingDashes
        let variants = [
            code.lowercased(),
            bare,
            bare.lowercased(),
            code.map { $0 == "-" ? " " : String($0) }.joined(),
            "  " + code.map { $0 == "-" ? "\t" : String($0) }.joined() + " ",
            code.replacingOccurrences("0", with: "O"),
            code.replacingOccurrences("0", with: "o"),
            code.replacingOccurrences("1", with: "I"),
            code.replacingOccurrences("1", with: "i"),
            code.replacingOccurrences("1", with: "L"),
            code.replacingOccurrences("1", with: "l"),
            "000g4 0r40m--30e20 9185G-r38e1w8124GK2GA hc5rr 34d-1p70x3r fp63e-d54",
        ]
        #expect(code.contains("0") && code.contains("1"))
        for variant in variants {
            #expect(try AccountKey(pairingCode: variant) == key, "\(variant)")
        }
    }

    static let positions = [0, 6, 13, 19, 25, 31, 38, 44, 51, 57]

    @Test(arguments: 0..<5)
    func everySingleSubstitutionIsDetected(seed: Int) throws {
        let symbols = Array(F.key(seed: seed).pairingCode.replacingDashes)
        for position in Self.positions {
            for replacement in Self.alphabet where replacement != symbols[position] {
                var altered = symbols
                altered[position] = replacement
                let error = #expect(throws: HandoffError.self, "\(position) -> \(replacement)") {
                    try AccountKey(pairingCode: String(altered))
                }
                #expect(error?.code == .invalidValue)
                #expect(error?.message == "the pairing code has a typo (its checksum does not match): compare it group by group")
            }
        }
    }

    @Test(arguments: 0..<5)
    func everyAdjacentTranspositionIsDetected(seed: Int) {
        let symbols = Array(F.key(seed: seed).pairingCode.replacingDashes)
        var tried = 0
        for i in 0..<(symbols.count - 1) where symbols[i] != symbols[i + 1] {
            var altered = symbols
            altered.swapAt(i, i + 1)
            let error = #expect(throws: HandoffError.self, "swap \(i), \(i + 1)") {
                try AccountKey(pairingCode: String(altered))
            }
            #expect(error?.message.contains("checksum does not match") == true)
            tried += 1
        }
        #expect(tried > 40)
    }

    @Test func nonZeroPaddingIsRefused() {
        var symbols = Array(F.sequentialKey.pairingCode.replacingDashes)
        let last = Self.alphabet.firstIndex(of: symbols[57])!
        #expect(last & 0b11 == 0)
        for padding in 1...3 {
            symbols[57] = Self.alphabet[last | padding]
            let error = #expect(throws: HandoffError.self) { try AccountKey(pairingCode: String(symbols)) }
            #expect(error?.message.contains("checksum does not match") == true)
        }
    }

    @Test func badCharactersAreNamedWithTheirPosition() {
        let code = F.sequentialKey.pairingCode  // 000G4-0R40M-...
        func failure(_ text: String) -> HandoffError? {
            #expect(throws: HandoffError.self) { try AccountKey(pairingCode: text) }
        }
        var chars = Array(code)
        chars[6] = "U"  // the 7th character, in the second group
        let u = failure(String(chars))
        #expect(u?.code == .invalidValue)
        #expect(u?.message.contains("\"U\" (character 7)") == true, "\(u?.message ?? "")")
        #expect(u?.message.contains("except U") == true)
        chars[6] = "u"
        #expect(failure(String(chars))?.message.contains("\"u\" (character 7)") == true)
        #expect(failure("!" + code)?.message.contains("\"!\" (character 1)") == true)
        #expect(failure(code + "\n")?.message.contains("U+000A (character 70)") == true)
        #expect(failure("é" + code)?.message.contains("U+00E9 (character 1)") == true)
        #expect(failure(code + "_")?.message.contains("\"_\"") == true)
        #expect(failure("000G4.0R40M")?.code == .invalidValue)
    }

    @Test func wrongLengthsSayHowLong() {
        let bare = F.sequentialKey.pairingCode.replacingDashes
        for (text, count) in [("", 0), (String(bare.dropLast()), 57), (bare + "0", 59), ("ABCDE-FGHJK", 10), (bare + bare, 116)] {
            let error = #expect(throws: HandoffError.self) { try AccountKey(pairingCode: text) }
            #expect(error?.code == .invalidValue)
            #expect(error?.message == "a pairing code has 58 letters and digits; this one has \(count)")
        }
        #expect(throws: HandoffError.self) { try AccountKey(pairingCode: "- - -\t") }
    }
}

fileprivate extension String {
    var replacingDashes: String { filter { $0 != "-" } }

    func replacingOccurrences(_ target: Character, with replacement: Character) -> String {
        String(map { $0 == target ? replacement : $0 })
    }
}
