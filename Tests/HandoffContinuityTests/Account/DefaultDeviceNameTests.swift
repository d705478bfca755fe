// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
import Testing

/// A new device's default name (docs/PROTOCOL.md §4): machine-info read as
/// hostnamectl reads it, the chassis as a person says it, always a valid name.
@Suite struct DefaultDeviceNameTests {
    @Test func machineInfoIsReadWithItsQuotes() {
        let info = DefaultDeviceName.machineInfo("""
            # a comment
            PRETTY_HOSTNAME="Ada's \\"Work\\" Laptop"
            CHASSIS='laptop'
            ICON_NAME=computer-laptop
            """)
        #expect(info["PRETTY_HOSTNAME"] == "Ada's \"Work\" Laptop")
        #expect(info["CHASSIS"] == "laptop")
        #expect(info["ICON_NAME"] == "computer-laptop")
    }

    @Test func chassisWords() {
        #expect(DefaultDeviceName.chassisWord("convertible") == "laptop")
        #expect(DefaultDeviceName.chassisWord("handset") == "phone")
        #expect(DefaultDeviceName.chassisWord("vm") == "computer")
        #expect(DefaultDeviceName.chassisWord(10) == "laptop")
        #expect(DefaultDeviceName.chassisWord(3) == "desktop")
        #expect(DefaultDeviceName.chassisWord(30) == "tablet")
        #expect(DefaultDeviceName.chassisWord(23) == "server")
        #expect(DefaultDeviceName.chassisWord(1) == "computer")
    }

    @Test func aLongPersonNameIsCutSoTheWholeNameIsValid() throws {
        let name = DefaultDeviceName.named(person: String(repeating: "Ö", count: 60), chassis: "laptop")
        try DeviceIdentity.validateName(name)
        #expect(name.hasSuffix("'s laptop"))
        #expect(DefaultDeviceName.named(person: "Ada\u{1}", chassis: "desktop") == "Ada's desktop")
        try DeviceIdentity.validateName(DefaultDeviceName.current())
    }
}
