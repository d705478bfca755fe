// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

/// SPAKE2-P256-SHA256-HKDF-HMAC against RFC 9382's Appendix B vectors
/// (fixed w, x, y; identities as given; no AAD), and what it refuses.
@Suite struct SPAKE2Tests {
    struct Vector {
        var a: String, b: String, w: String, x: String, y: String
        var pA: String, pB: String, hashTT: String, cA: String, cB: String
    }

    static let vectors = [
        Vector(a: "server", b: "client",
               w: "2ee57912099d31560b3a44b1184b9b4866e904c49d12ac5042c97dca461b1a5f",
               x: "43dd0fd7215bdcb482879fca3220c6a968e66d70b1356cac18bb26c84a78d729",
               y: "dcb60106f276b02606d8ef0a328c02e4b629f84f89786af5befb0bc75b6e66be",
               pA: "04a56fa807caaa53a4d28dbb9853b9815c61a411118a6fe516a8798434751470f9010153ac33d0d5f2047ffdb1a3e42c9b4e6be662766e1eeb4116988ede5f912c",
               pB: "0406557e482bd03097ad0cbaa5df82115460d951e3451962f1eaf4367a420676d09857ccbc522686c83d1852abfa8ed6e4a1155cf8f1543ceca528afb591a1e0b7",
               hashTT: "0e0672dc86f8e45565d338b0540abe6915bdf72e2b35b5c9e5663168e960a91b",
               cA: "58ad4aa88e0b60d5061eb6b5dd93e80d9c4f00d127c65b3b35b1b5281fee38f0",
               cB: "d3e2e547f1ae04f2dbdbf0fc4b79f8ecff2dff314b5d32fe9fcef2fb26dc459b"),
        Vector(a: "", b: "",
               w: "7bf46c454b4c1b25799527d896508afd5fc62ef4ec59db1efb49113063d70cca",
               x: "8cef65df64bb2d0f83540c53632de911b5b24b3eab6cc74a97609fd659e95473",
               y: "d7a66f64074a84652d8d623a92e20c9675c61cb5b4f6a0063e4648a2fdc02d53",
               pA: "04a65b367a3f613cf9f0654b1b28a1e3a8a40387956c8ba6063e8658563890f46ca1ef6a676598889fc28de2950ab8120b79a5ef1ea4c9f44bc98f585634b46d66",
               pB: "04589f13218822710d98d8b2123a079041052d9941b9cf88c6617ddb2fcc0494662eea8ba6b64692dc318250030c6af045cb738bc81ba35b043c3dcb46adf6f58d",
               hashTT: "fc6374762ba5cf11f4b2caa08b2cd1b9907ae0e26e8d6234318d91583cd74c86",
               cA: "dfb4db8d48ae5a675963ea5e6c19d98d4ea028d8e898dad96ea19a80ade95dca",
               cB: "d0f0609d1613138d354f7e95f19fb556bf52d751947241e8c7118df5ef0ae175"),
    ]

    static func hex(_ text: String) -> [UInt8] { ProtocolVectorTests().decodeHex(text)! }

    @Test(arguments: vectors.indices) func rfc9382AppendixB(_ index: Int) throws {
        let v = Self.vectors[index]
        let a = SPAKE2(role: .a, password: Self.hex(v.w), identityA: Array(v.a.utf8), identityB: Array(v.b.utf8), aad: [],
                       secret: Self.hex(v.x))
        let b = SPAKE2(role: .b, password: Self.hex(v.w), identityA: Array(v.a.utf8), identityB: Array(v.b.utf8), aad: [],
                       secret: Self.hex(v.y))
        #expect(a.share == Self.hex(v.pA))
        #expect(b.share == Self.hex(v.pB))
        let ka = try #require(a.finish(peerShare: b.share))
        let kb = try #require(b.finish(peerShare: a.share))
        #expect(ka == kb)
        #expect(Crypto.sha256(ka.transcript) == Self.hex(v.hashTT))
        #expect(ka.sharedKey == Array(Self.hex(v.hashTT)[..<16]))
        #expect(ka.confirmationA == Self.hex(v.cA))
        #expect(ka.confirmationB == Self.hex(v.cB))
    }

    @Test func differentPasswordsDisagree() throws {
        let a = SPAKE2(role: .a, password: [1], identityA: [], identityB: [], aad: [])
        let b = SPAKE2(role: .b, password: [2], identityA: [], identityB: [], aad: [])
        let ka = try #require(a.finish(peerShare: b.share)), kb = try #require(b.finish(peerShare: a.share))
        #expect(ka.sharedKey != kb.sharedKey)
        #expect(ka.confirmationB != kb.confirmationB)
    }

    @Test func sharesThatAreNoPointsAreRefused() {
        let a = SPAKE2(role: .a, password: [7], identityA: [], identityB: [], aad: [])
        var offCurve = a.share
        offCurve[64] ^= 1
        #expect(a.finish(peerShare: offCurve) == nil, "a point off the curve")
        #expect(a.finish(peerShare: [0]) == nil, "the point at infinity")
        #expect(a.finish(peerShare: [UInt8](repeating: 0xff, count: 65)) == nil)
        #expect(a.finish(peerShare: Array(a.share.prefix(33))) == nil, "a compressed point is not what travels")
    }

    /// pB = w·N makes pB − w·N the point at infinity: refused, not a K of
    /// infinity that every password would "agree" on.
    @Test func aShareThatCancelsTheMaskIsRefused() {
        let curve = P256()
        let w = curve.scalar(reducing: [9])
        let maskOnly = curve.encode(curve.multiply(curve.point(SPAKE2.n)!, w))
        let a = SPAKE2(role: .a, password: [9], identityA: [], identityB: [], aad: [])
        #expect(a.finish(peerShare: maskOnly) == nil)
    }
}
