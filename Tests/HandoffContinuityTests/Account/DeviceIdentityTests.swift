// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffModel
import Testing
@testable import HandoffContinuity
import HandoffTestSupport

@Suite struct DeviceIdentityTests {
    @Test func generatedIdentities() throws {
        let device = try DeviceIdentity.generate(name: "Desk")
        #expect(device.role == .full)
        #expect(device.name == "Desk")
        #expect(device.id.utf8.count == 32)
        #expect(device.id.allSatisfy { "0123456789abcdef".contains($0) })
        #expect(device.idBytes.count == 16)
        #expect(AccountFixtures.hex(device.idBytes) == device.id)
        #expect(try DeviceIdentity.generate(name: "Watch", role: .sendOnly).role == .sendOnly)
        let ids = try Set((0..<50).map { _ throws(HandoffError) in try DeviceIdentity.generate(name: "x").id })
        #expect(ids.count == 50)
    }

    @Test func idBytes() throws {
        let device = try DeviceIdentity(id: "00112233445566778899aabbccddeeff", name: "Desk", role: .full)
        #expect(device.idBytes == [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff])
        var broken = device
        broken.id = "nope"
        #expect(broken.idBytes.isEmpty)
    }

    @Test(arguments: [
        "", "0011", "00112233445566778899aabbccddeef", "00112233445566778899aabbccddeeff0",
        "00112233445566778899AABBCCDDEEFF", "00112233445566778899aabbccddeefg", "00112233445566778899aabbccddee f",
        "００112233445566778899aabbccddee",
    ])
    func invalidIDsAreRefused(id: String) {
        let error = #expect(throws: HandoffError.self) { try DeviceIdentity(id: id, name: "Desk", role: .full) }
        #expect(error?.code == .invalidValue)
        #expect(error?.message.contains("32 lowercase hex digits") == true)
    }

    @Test func names() throws {
        let id = "00112233445566778899aabbccddeeff"
        for name in ["D", "Küchen-Laptop", String(repeating: "é", count: 32), String(repeating: "a", count: 64), "名前 🎉", "a=b"] {
            #expect(try DeviceIdentity(id: id, name: name, role: .full).name == name)
        }
        let bad: [(String, String)] = [
            ("", "cannot be empty"),
            (String(repeating: "a", count: 65), "65 UTF-8 bytes"),
            (String(repeating: "é", count: 32) + "a", "65 UTF-8 bytes"),
            ("two\nlines", "U+000A"), ("tab\there", "U+0009"), ("cr\r", "U+000D"), ("nul\0", "U+0000"),
            ("del\u{7f}", "U+007F"), ("c1\u{85}", "U+0085"),
        ]
        for (name, words) in bad {
            let error = #expect(throws: HandoffError.self, "\(name)") { try DeviceIdentity(id: id, name: name, role: .full) }
            #expect(error?.code == .invalidValue)
            #expect(error?.message.contains(words) == true, "\(error?.message ?? "")")
        }
    }

    @Test func sanitizedNames() throws {
        #expect(DeviceIdentity.sanitizedName("desk") == "desk")
        #expect(DeviceIdentity.sanitizedName("") == "Linux")
        #expect(DeviceIdentity.sanitizedName("\n\u{7f}") == "Linux")
        #expect(DeviceIdentity.sanitizedName("a\nb") == "ab")
        #expect(DeviceIdentity.sanitizedName("  spaced  ") == "spaced")
        let long = DeviceIdentity.sanitizedName(String(repeating: "é", count: 40))
        #expect(long == String(repeating: "é", count: 32))
        let odd = DeviceIdentity.sanitizedName("a" + String(repeating: "é", count: 40))
        #expect(odd.utf8.count == 63)
        for name in ["", "x", "\t", String(repeating: "🎉", count: 30), "a\u{85}b"] {
            try DeviceIdentity.validateName(DeviceIdentity.sanitizedName(name))
        }
    }

    @Test func hostName() throws {
        let name = currentHostName()
        #expect(!name.isEmpty)
        var buffer = [CChar](repeating: 0, count: 256)
        #expect(gethostname(&buffer, 255) == 0)
        #expect(name == String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        try DeviceIdentity.validateName(DeviceIdentity.sanitizedName(name))
    }

    @Test func roles() {
        #expect(DeviceRole(name: "full") == .full)
        #expect(DeviceRole(name: "send-only") == .sendOnly)
        #expect(DeviceRole(name: "sendOnly") == nil)
    }
}
