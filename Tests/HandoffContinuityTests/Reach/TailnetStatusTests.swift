// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity
import Testing

/// tailscaled's LocalAPI answer as the tailnet source reads it
/// (docs/PROTOCOL.md "Peer sources"): HTTP framing, the JSON, and which
/// peers are kept.
@Suite struct TailnetStatusTests {
    /// A peer as ipnstate.PeerStatus marshals it (the fields that matter,
    /// and a few that do not).
    static func peer(_ host: String, user: Int, online: Bool = true, sharee: Bool? = nil,
                     ips: [String] = ["100.64.0.2", "fd7a:115c:a1e0::2"], tags: String? = nil) -> String {
        let ipList = ips.map { "\"\($0)\"" }.joined(separator: ",")
        var fields = ["\"ID\":\"n\(host)\"", "\"PublicKey\":\"nodekey:\(host)\"", "\"HostName\":\"\(host)\"",
                      "\"DNSName\":\"\(host).tail1234.ts.net.\"", "\"OS\":\"linux\"", "\"UserID\":\(user)",
                      "\"TailscaleIPs\":[\(ipList)]", "\"RxBytes\":0", "\"Created\":\"2026-01-01T00:00:00Z\"",
                      "\"Online\":\(online)", "\"Active\":false", "\"CapMap\":{\"https://tailscale.com/cap/x\":[{\"a\":[1,2.5]}]}"]
        if let sharee { fields.append("\"ShareeNode\":\(sharee)") }
        // ipnstate marshals Tags only when there are some (omitempty).
        if let tags { fields.append("\"Tags\":\(tags)") }
        return "{" + fields.joined(separator: ",") + "}"
    }

    static func status(_ peers: [(String, String)], state: String = "Running", selfUser: Int = 7,
                       selfTags: String? = nil) -> [UInt8] {
        let map = peers.map { "\"nodekey:\($0.0)\":\($0.1)" }.joined(separator: ",")
        return Array("""
            {"Version":"1.76.1","TUN":true,"BackendState":"\(state)","AuthURL":"","TailscaleIPs":["100.64.0.1"],
             "Self":\(peer("me", user: selfUser, ips: ["100.64.0.1"], tags: selfTags)),"Health":null,"MagicDNSSuffix":"tail1234.ts.net",
             "CurrentTailnet":{"Name":"ada@example.com","MagicDNSSuffix":"tail1234.ts.net","MagicDNSEnabled":true},
             "CertDomains":null,"Peer":{\(map)},"User":{"7":{"ID":7,"LoginName":"ada@example.com"}},"ClientVersion":null}
            """.utf8)
    }

    @Test func keepsOnlineDevicesOfTheSameUserThatAreNotSharedIn() throws {
        let s = try TailnetStatus(json: Self.status([
            ("b", Self.peer("desk", user: 7)),
            ("a", Self.peer("laptop", user: 7, sharee: false, ips: ["100.64.0.3"])),
            ("c", Self.peer("asleep", user: 7, online: false)),
            ("d", Self.peer("bob", user: 8)),
            ("e", Self.peer("shared", user: 7, sharee: true)),
            ("f", Self.peer("noaddress", user: 7, ips: [])),
        ]))
        #expect(s.backendState == "Running")
        // In the order of their keys.
        #expect(s.peers == [TailnetStatus.Peer(name: "laptop", addresses: ["100.64.0.3"]),
                            TailnetStatus.Peer(name: "desk", addresses: ["100.64.0.2", "fd7a:115c:a1e0::2"])])
        #expect(s.offline == 1 && s.otherUsers == 1 && s.shared == 1 && s.overLimit == 0)
    }

    /// Every tagged node of a tailnet has the UserID of "tagged-devices":
    /// a tagged device keeps the tagged devices that share a tag with it,
    /// not every tagged node (servers, CI runners) of the organisation.
    @Test func aTaggedDeviceKeepsTheTaggedDevicesThatShareATag() throws {
        let tagged = 2_147_455_555
        let s = try TailnetStatus(json: Self.status([
            ("a", Self.peer("desk", user: tagged, ips: ["100.64.0.3"], tags: #"["tag:server","tag:ada"]"#)),
            ("b", Self.peer("ci-runner", user: tagged, tags: #"["tag:ci"]"#)),
            ("c", Self.peer("untagged", user: tagged)),
            ("d", Self.peer("empty-tags", user: tagged, tags: "[]")),
            ("e", Self.peer("odd-tags", user: tagged, tags: #"[1]"#)),
            ("f", Self.peer("laptop", user: tagged, ips: ["100.64.0.4"], tags: #"["tag:ada"]"#)),
            ("g", Self.peer("bobs", user: 8, tags: #"["tag:ada"]"#)),
        ], selfUser: tagged, selfTags: #"["tag:ada","tag:desktops"]"#))
        #expect(s.peers.map(\.name) == ["desk", "laptop"])
        #expect(s.otherTags == 4 && s.otherUsers == 1)
    }

    /// An untagged device is its person's: a node of the same UserID that
    /// is tagged (Headscale kept the registering user's ID on tagged nodes)
    /// belongs to its tags, not to the person.
    @Test func anUntaggedDeviceKeepsItsPersonsUntaggedDevicesOnly() throws {
        let s = try TailnetStatus(json: Self.status([
            ("a", Self.peer("desk", user: 7)),
            ("b", Self.peer("server", user: 7, tags: #"["tag:server"]"#)),
            ("c", Self.peer("null-tags", user: 7, ips: ["100.64.0.5"], tags: "null")),
        ]))
        #expect(s.peers.map(\.name) == ["desk", "null-tags"])
        #expect(s.otherTags == 1)
        let wire = Array("HTTP/1.1 200 OK\r\n\r\n".utf8) + Self.status([("b", Self.peer("server", user: 7, tags: #"["tag:server"]"#))])
        let state = TailnetSource.interpret(.response(wire), socketPath: "/run/ts.sock", port: 52370, now: 0, watched: true).1
        #expect(state.condition == .ok && state.peers == 0 && state.message == "left out: 1 with other tags")
    }

    @Test func selfTagsOfAnotherShapeAreNotAStatus() {
        #expect(throws: HandoffError.self) {
            try TailnetStatus(json: Self.status([("a", Self.peer("desk", user: 7))], selfTags: #""tag:ada""#))
        }
    }

    @Test func onlyTheFirstTagsAreCompared() throws {
        let many = "[" + (0..<200).map { "\"tag:t\($0)\"" }.joined(separator: ",") + "]"
        let s = try TailnetStatus(json: Self.status([
            ("a", Self.peer("early", user: 9, tags: #"["tag:t3"]"#)),
            ("b", Self.peer("late", user: 9, tags: #"["tag:t150"]"#)),
        ], selfUser: 9, selfTags: many))
        #expect(s.peers.map(\.name) == ["early"] && s.otherTags == 1)
    }

    @Test func aStoppedTailnetHasNoPeersAndIsNotAnError() throws {
        let s = try TailnetStatus(json: Array(#"{"BackendState":"Stopped","Self":null,"Peer":null}"#.utf8))
        #expect(s.backendState == "Stopped" && s.peers.isEmpty)
    }

    @Test func keepsAtMostMaxPeers() throws {
        let many = (0..<200).map { i in (String(1000 + i), Self.peer("p\(i)", user: 7, ips: ["100.64.1.\(i % 250)"])) }
        let s = try TailnetStatus(json: Self.status(many))
        #expect(s.peers.count == TailnetStatus.maxPeers && s.overLimit == 200 - TailnetStatus.maxPeers)
        #expect(s.peers.first?.name == "p0")
    }

    @Test(arguments: [
        "", "null", "[]", "{", #"{"BackendState":1}"#, #"{"BackendState":"Running"}"#,
        #"{"BackendState":"Running","Self":{"UserID":"7"}}"#,
        #"{"BackendState":"Running","Self":{"UserID":7},"Peer":[]}"#,
        #"{"BackendState":"Running","Self":{"UserID":7},"Peer":{"k":1}}"#,
        String(repeating: "[", count: 40) + String(repeating: "]", count: 40),
        #"{"BackendState":"Running","Self":{"UserID":7},"Peer":{}} trailing"#,
    ])
    func refusesWhatIsNotAStatus(_ text: String) {
        #expect(throws: HandoffError.self) { try TailnetStatus(json: Array(text.utf8)) }
    }

    @Test func refusesABodyOverTheBound() {
        let big = [UInt8](repeating: 0x20, count: TailnetStatus.maxBodyBytes + 1)
        #expect(throws: HandoffError.self) { try TailnetStatus(json: big) }
    }

    // MARK: HTTP framing

    static let body = status([("b", peer("desk", user: 7))])

    @Test func readsAChunkedAnswerAsGoSendsIt() throws {
        var wire = Array("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        var rest = Self.body[...]
        while !rest.isEmpty {
            let chunk = rest.prefix(100)
            wire += Array(String(chunk.count, radix: 16).utf8) + [13, 10] + chunk + [13, 10]
            rest = rest.dropFirst(chunk.count)
        }
        wire += Array("0\r\n\r\n".utf8)
        #expect(try TailnetStatus(response: wire).peers.map(\.name) == ["desk"])
    }

    @Test func readsContentLengthAndCloseDelimitedAnswers() throws {
        let sized = Array("HTTP/1.1 200 OK\r\nContent-Length: \(Self.body.count)\r\n\r\n".utf8) + Self.body
        #expect(try TailnetStatus(response: sized).peers.count == 1)
        let closed = Array("HTTP/1.0 200 OK\r\n\r\n".utf8) + Self.body
        #expect(try TailnetStatus(response: closed).peers.count == 1)
    }

    @Test func saysWhatTailscaledAnsweredWhenItIsNot200() {
        let wire = Array("HTTP/1.1 403 Forbidden\r\nContent-Length: 15\r\n\r\naccess denied\r\n".utf8)
        #expect {
            try TailnetStatus(response: wire)
        } throws: { error in
            (error as? HandoffError)?.message.contains("HTTP 403: access denied") == true
        }
    }

    /// Its words reach a terminal through doctor: an escape sequence in
    /// the error body arrives without its control characters.
    @Test func itsWordsLoseControlCharacters() {
        let wire = Array("HTTP/1.1 500 Oops\r\nContent-Length: 12\r\n\r\nbad\u{1B}[2Jthing".utf8)
        #expect {
            try TailnetStatus(response: wire)
        } throws: { error in
            guard let message = (error as? HandoffError)?.message else { return false }
            return message.hasSuffix("HTTP 500: bad[2Jthing") && !message.unicodeScalars.contains { $0.value < 0x20 }
        }
    }

    @Test(arguments: [
        "garbage", "HTTP/1.1 200 OK\r\n", "HTTP/2 200\r\n\r\n{}", "HTTP/1.1 20 OK\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n{}",
        "HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n{}",
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n{}",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{}\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}XX0\r\n\r\n",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nfffffffff\r\n",
        "HTTP/1.1 200 OK\r\nno colon\r\n\r\n{}",
    ])
    func refusesBrokenFraming(_ text: String) {
        #expect(throws: HandoffError.self) { try HTTPResponse(bytes: Array(text.utf8)) }
    }

    @Test func refusesAHeaderOverTheBound() {
        let wire = Array("HTTP/1.1 200 OK\r\nX: ".utf8) + [UInt8](repeating: 0x61, count: HTTPResponse.maxHeaderBytes) + Array("\r\n\r\n{}".utf8)
        #expect(throws: HandoffError.self) { try HTTPResponse(bytes: wire) }
    }

    // MARK: What the source makes of each outcome

    @Test func eachOutcomeIsAStateWithItsNextTry() {
        let path = "/run/ts.sock"
        let (none, absent, wait) = TailnetSource.interpret(.absent, socketPath: path, port: 52370, now: 100, watched: true)
        #expect(none.isEmpty && absent.condition == .absent && wait == nil)  // the watch says when it appears
        #expect(TailnetSource.interpret(.absent, socketPath: path, port: 52370, now: 100, watched: false).2 == 100 + TailnetSource.absentRetry)
        let refused = TailnetSource.interpret(.refused("Connection refused"), socketPath: path, port: 52370, now: 100, watched: true)
        #expect(refused.1.condition == .unavailable && refused.2 == 100 + TailnetSource.pollInterval)
        let garbage = TailnetSource.interpret(.response(Array("nonsense".utf8)), socketPath: path, port: 52370, now: 100, watched: true)
        #expect(garbage.0.isEmpty && garbage.1.condition == .failed && garbage.2 == 110)
        let wire = Array("HTTP/1.1 200 OK\r\nContent-Length: \(Self.body.count)\r\n\r\n".utf8) + Self.body
        let ok = TailnetSource.interpret(.response(wire), socketPath: path, port: 52370, now: 100, watched: true)
        #expect(ok.0 == [UDPAddress("100.64.0.2:52370")!, UDPAddress("[fd7a:115c:a1e0::2]:52370")!])
        #expect(ok.1.condition == .ok && ok.1.peers == 1 && ok.2 == 110)
        let stopped = Array(#"{"BackendState":"NeedsLogin"}"#.utf8)
        let login = TailnetSource.interpret(.response(Array("HTTP/1.1 200 OK\r\n\r\n".utf8) + stopped), socketPath: path,
                                            port: 52370, now: 100, watched: true)
        #expect(login.1.condition == .unavailable && login.1.message?.contains("NeedsLogin") == true)
    }

    @Test func aMissingSocketIsAbsentNotAnError() {
        #expect(LocalAPIClient.get("/localapi/v0/status", socket: "/nonexistent-\(getpid())/tailscaled.sock") == .absent)
    }
}
