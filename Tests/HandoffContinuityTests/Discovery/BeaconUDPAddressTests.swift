// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct BeaconUDPAddressTests {
    @Test func parsesNumericAddresses() throws {
        let v4 = try #require(UDPAddress("127.0.0.1:52371"))
        #expect(v4.host == "127.0.0.1" && v4.port == 52371 && !v4.isIPv6 && v4.scopeID == 0)
        #expect(v4.description == "127.0.0.1:52371")

        let v6 = try #require(UDPAddress("[::1]:52370"))
        #expect(v6.host == "::1" && v6.port == 52370 && v6.isIPv6)
        #expect(v6.description == "[::1]:52370")

        // Canonical text and equality by value.
        #expect(UDPAddress("[0:0:0:0:0:0:0:1]:1") == UDPAddress(host: "::1", port: 1))
        #expect(UDPAddress("[0:0:0:0:0:0:0:1]:1")?.host == "::1")
        #expect(UDPAddress("[FF02::4841:4E44]:2")?.host == "ff02::4841:4e44")
        #expect(UDPAddress(host: "127.0.0.1", port: 1) != UDPAddress(host: "127.0.0.1", port: 2))
        #expect(Set([UDPAddress("[::1]:5")!, UDPAddress("[0::1]:5")!]).count == 1)
    }

    @Test func scopesNameAnInterface() throws {
        let lo = if_nametoindex("lo")
        let named = try #require(UDPAddress("[fe80::1%lo]:7"))
        #expect(named.scopeID == lo && named.host == "fe80::1%lo")
        let numbered = try #require(UDPAddress(host: "fe80::1%\(lo)", port: 7))
        #expect(numbered == named)
        #expect(UDPAddress("[fe80::1%nosuchif0]:7") == nil)
        #expect(UDPAddress("[fe80::1%]:7") == nil)
        #expect(UDPAddress(host: "127.0.0.1%lo", port: 7) == nil)
        // The description parses back to the same address.
        #expect(UDPAddress(named.description) == named)
    }

    @Test func refusesAnythingElse() {
        for text in ["", "localhost:1", "example.com:52370", "127.0.0.1", "127.0.0.1:", "127.0.0.1:65536",
                     "127.0.0.1:-1", "127.0.0.1:+1", "127.0.0.1: 1", "1.2.3:4", "256.1.1.1:1", "::1:5", "[::1]",
                     "[::1]5", "[::1:5", "[127.0.0.1]:1", "::1", " 127.0.0.1:1"] {
            #expect(UDPAddress(text) == nil, "\(text)")
        }
        #expect(UDPAddress(host: "localhost", port: 1) == nil)
        #expect(UDPAddress(host: "", port: 1) == nil)
    }

    @Test func sockaddrRoundTrip() throws {
        var names: [UInt32: String] = [:]
        for text in ["10.1.2.3:4", "[2001:db8::5]:6", "[fe80::1%lo]:7"] {
            let address = try #require(UDPAddress(text))
            var storage = sockaddr_storage()
            address.withSockaddr { sa, length in
                withUnsafeMutableBytes(of: &storage) { $0.copyMemory(from: UnsafeRawBufferPointer(start: sa, count: Int(length))) }
            }
            #expect(UDPAddress(storage: storage, names: &names) == address)
            #expect(UDPAddress(storage: storage, names: &names)?.description == text)
        }
    }
}
