// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

@Suite struct ChannelFrameTests {
    @Test func frameEncodingMatchesTheProtocolVector() {
        let frame = Frame(type: 0x01, payload: Array(0x00...0x0f))
        let hex = frame.encoded().map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
        #expect(hex == "0000001101000102030405060708090a0b0c0d0e0f")
        #expect(Frame(type: 7, payload: []).encoded() == [0, 0, 0, 1, 7])
    }

    @Test func addressesParseAndPrintInTheSameForms() throws {
        let v4 = try SocketAddress(parsing: "127.0.0.1:5000")
        #expect(v4 == SocketAddress(host: "127.0.0.1", port: 5000))
        #expect(v4.description == "127.0.0.1:5000")
        let v6 = try SocketAddress(parsing: "[::1]:5000")
        #expect(v6 == SocketAddress(host: "::1", port: 5000))
        #expect(v6.description == "[::1]:5000")
        let scoped = try SocketAddress(parsing: "[fe80::1%veth0]:5000")
        #expect(scoped.host == "fe80::1%veth0" && scoped.port == 5000)
        #expect(scoped.description == "[fe80::1%veth0]:5000")
        #expect(try SocketAddress(parsing: "0.0.0.0:0").port == 0)
    }

    @Test(arguments: ["127.0.0.1", "::1:5000", "[::1]5000", "[::1:5000", "localhost:5000", "127.0.0.1:65536",
                      "127.0.0.1:-1", "127.0.0.1:", "1.2.3:80", "[1.2.3.4]:80", "127.0.0.1:+80"])
    func badAddressesAreRefused(_ text: String) {
        #expect(ChannelTest.failure { () throws(HandoffError) in try SocketAddress(parsing: text) }?.code == .invalidArgument)
    }

    @Test func linkLocalWithoutInterfaceAndUnknownInterfacesAreRefused() {
        #expect(ChannelTest.failure { () throws(HandoffError) in try SocketAddress(host: "fe80::1", port: 1).resolved() }?.code == .invalidArgument)
        #expect(ChannelTest.failure { () throws(HandoffError) in try SocketAddress(host: "fe80::1%nosuchif0", port: 1).resolved() }?.code == .invalidArgument)
        #expect(ChannelTest.failure { () throws(HandoffError) in try SocketAddress(host: "fe80::1%lo", port: 1).resolved() } == nil)
    }

    @Test func clientIdentitiesAreFreshAndCarryThePrefix() {
        let a = String(decoding: TLSContext.randomIdentity(), as: UTF8.self)
        let b = String(decoding: TLSContext.randomIdentity(), as: UTF8.self)
        #expect(a != b)
        for identity in [a, b] {
            #expect(identity.hasPrefix("handoff1."))
            let suffix = identity.dropFirst("handoff1.".count)
            #expect(suffix.count == 32)
            #expect(suffix.allSatisfy { "0123456789abcdef".contains($0) })
        }
    }

    @Test func badKeysAndLimitsAreRefusedBeforeAnyNetworking() {
        let address = SocketAddress(host: "127.0.0.1", port: ChannelTest.closedPort())
        #expect(ChannelTest.failure { () throws(HandoffError) in try ChannelConnection.connect(to: address, psk: [1, 2, 3]) }?.code == .invalidArgument)
        var limits = ChannelLimits()
        limits.maxFrameSize = 0
        #expect(ChannelTest.failure { () throws(HandoffError) in try ChannelConnection.connect(to: address, psk: ChannelTest.key, limits: limits) }?.code == .invalidArgument)
        #expect(ChannelTest.failure { () throws(HandoffError) in
            try ChannelServer(listeningOn: ChannelTest.anyPort, psk: [], onConnection: { _ in })
        }?.code == .invalidArgument)
        #expect(ChannelTest.failure { () throws(HandoffError) in
            try ChannelServer(listeningOn: SocketAddress(host: "localhost", port: 0), psk: ChannelTest.key, onConnection: { _ in })
        }?.code == .invalidArgument)
    }
}
