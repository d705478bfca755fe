// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffModel
import HandoffRuntime
@testable import HandoffContinuity
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The local protocol's codec (docs/agent.md §3).
@Suite struct AgentFrameTests {
    static let id = ActivityID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!
    static let remote = RemoteActivity(deviceID: "00112233445566778899aabbccddeeff", deviceName: "Laptop", activityID: id,
                                       activityType: "com.example.edit", title: "Notes", webpageURL: URLReference(string: "https://example.com/a"),
                                       supportsContinuationStreams: true, isWebOnly: false,
                                       firstSeen: Timestamp(timeIntervalSince1970: 1_700_000_000.123),
                                       teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.app",
                                       expirationDate: Timestamp(timeIntervalSince1970: 1_800_000_000.5))

    /// Every message, as the side that sends it.
    static var samples: [(AgentMessage, AgentMessage.Sender)] {
        let manifest = try! Manifest(bundleIdentifier: "com.example.app", teamIdentifier: "A1B2C3D4E5",
                                     activityTypes: ["com.example.edit", "INSendMessageIntent"])
        let advert = Advertisement(activityID: id, activityType: "com.example.edit", title: "Notes", bundleIdentifier: "com.example.app",
                                   teamIdentifier: "A1B2C3D4E5", webpageURL: URLReference(string: "https://example.com/a"),
                                   expirationDate: Timestamp(timeIntervalSince1970: 1_800_000_000), supportsContinuationStreams: true)
        var tally = BeaconTally()
        (tally.packets, tally.accepted, tally.foreign, tally.stale) = (9, 4, 2, 3)
        tally.foreignSources = ["192.0.2.7"]
        tally.replaySources = ["Laptop from 192.0.2.8"]
        tally.staleSenders = [BeaconTally.StaleSender(deviceID: "00112233445566778899aabbccddeeff", name: "Laptop",
                                                      host: "192.0.2.9", skewMilliseconds: -600_000)]
        let status = AgentStatus(deviceID: Array(0..<16), deviceName: "Desk", role: .full, channelPort: 4000, beaconPort: 52370,
                                 clients: 2, remotes: [.init(deviceID: Array(16..<32), deviceName: "Laptop",
                                                             addresses: ["127.0.0.1:5000", "[::1]:5000"], verified: true,
                                                             lastHeardMilliseconds: 1200, role: .sendOnly),
                                                       .init(deviceID: Array(32..<48), deviceName: "Gone",
                                                             addresses: ["127.0.0.1:6000"], verified: false,
                                                             lastHeardMilliseconds: 300,
                                                             lastError: .init(address: "127.0.0.1:6000",
                                                                              error: HandoffError(.connectionUnavailable, "refused"),
                                                                              milliseconds: 250))],
                                 counters: ["duplicates": 3, "refused": 0], beacons: tally)
        return [
            (.hello(AgentHello(manifest: manifest, pid: 4242, observer: true)), .app),
            (.welcome(AgentWelcome(agentVersion: "0.1.0", deviceID: Array(0..<16), deviceName: "Desk", role: .sendOnly,
                                   accountID: "0011223344556677")), .agent),
            (.advertise(advert), .app),
            (.advertise(nil), .app),
            (.remote(.available(remote)), .agent),
            (.remote(.updated(remote)), .agent),
            (.remote(.withdrawn(remote)), .agent),
            (.fetch(id), .app),
            (.payload([1, 2, 3]), .agent),
            (.payload([]), .app),
            (.provide(id), .agent),
            (.confirm(id), .app),
            (.continued(id), .agent),
            (.openStream(id), .app),
            (.stream, .agent),
            (.acceptStream(id), .agent),
            (.ok, .app),
            (.continueActivity(remote), .agent),
            (.continueActivity(remote, activationToken: "xdg-token_1:2/3"), .agent),
            (.error(HandoffError(.remoteApplicationTimedOut, "too slow")), .agent),
            (.statusRequest, .app),
            (.status(status), .agent),
            (.choose(id), .app),
            (.undelivered(id, HandoffError(.remoteApplicationTimedOut, "too late")), .agent),
            (.offer(id, [0x62, 0x70]), .app),
            (.offer(id, nil), .app),
            (.served(id), .agent),
            (.index(id, [0x62, 0x70]), .app),
            (.forget(.identifiers(["doc-1", "Grüße"])), .app),
            (.forget(.all), .app),
            (.bringing(AgentBringing(activityID: id, name: "plan (2).txt", received: 4 << 20, total: 64 << 20)), .agent),
            (.bringing(AgentBringing(activityID: id, name: "Grüße.pdf", received: 0, total: 0)), .agent),
            (.grant("file:///home/ada/Downloads/Handoff/plan%20(from%20B).odt"), .app),
            (.granted(Array("/run/user/1000/doc/3f2a91c4/plan (from B).odt".utf8) + [0xFF]), .agent),
            (.revoke("file:///home/ada/plan.odt"), .app),
        ]
    }

    @Test func everyMessageRoundTrips() throws {
        #expect(Set(Self.samples.map { $0.0.kind }) == Set(AgentMessage.Kind.allCases))
        for (message, sender) in Self.samples {
            let frame = AgentFrame(message, requestID: AgentFrame.needsRequestID(message) ? 77 : 0)
            let bytes = try frame.encoded()
            #expect(bytes[0] == 1 && bytes[1] == message.kind.rawValue && bytes[2] == 0 && bytes[3] == 0)
            let decoded = try AgentFrame(decoding: bytes, from: sender)
            #expect(decoded == frame, "\(message)")
        }
    }

    /// Whatever a valid manifest holds, HELLO carries: the most types, of
    /// the most bytes, written as UTF-16 (one non-ASCII character each),
    /// with the longest bundle identifier. One more type is refused by the
    /// manifest itself, in both modes.
    @Test func helloCarriesTheLargestManifest() throws {
        let bundle = String(repeating: "a.", count: 127) + "b"  // 255 bytes
        var manifest = try Manifest(bundleIdentifier: bundle, teamIdentifier: String(repeating: "T", count: 32))
        let per = Manifest.maxActivityTypeBytes / Manifest.maxActivityTypes  // 48 bytes each
        for i in 0..<Manifest.maxActivityTypes {
            let stem = "é\(i)."  // é is 2 bytes: the plist holds the type as UTF-16
            try manifest.declare(stem + String(repeating: "x", count: per - stem.utf8.count))
        }
        #expect(manifest.activityTypes.count == Manifest.maxActivityTypes)
        #expect(manifest.activityTypes.reduce(0) { $0 + $1.utf8.count } == Manifest.maxActivityTypeBytes)
        // And the most web domains, each of the longest host name.
        let label = String(repeating: "w", count: 63)
        for i in 0..<Manifest.maxWebDomains {
            let tail = "d\(i)"
            try manifest.declare(webDomain: "*.\(label).\(label).\(label)."
                                     + String(repeating: "x", count: WebDomain.maxHostBytes - 192 - tail.count) + tail)
        }
        #expect(manifest.webDomains.count == Manifest.maxWebDomains)
        #expect(manifest.webDomains.allSatisfy { $0.host.utf8.count == WebDomain.maxHostBytes })
        let hello = AgentFrame(.hello(AgentHello(manifest: manifest, pid: Int32.max, observer: true)), requestID: 1)
        let bytes = try hello.encoded()
        #expect(try AgentFrame(decoding: bytes, from: .app) == hello)
        // One more, or one byte more, is refused by the manifest.
        var more = manifest
        #expect(throws: HandoffError.self) { try more.declare("one.more") }
        var fewer = try Manifest(bundleIdentifier: "com.example.app", teamIdentifier: "TEAM1")
        for i in 0..<(Manifest.maxActivityTypeBytes / 255) {
            try fewer.declare(String(repeating: "\(i % 10)", count: 250) + ".\(i + 1000)")
        }
        let used = fewer.activityTypes.reduce(0) { $0 + $1.utf8.count }
        #expect(throws: HandoffError.self) {
            try fewer.declare(String(repeating: "z", count: min(255, Manifest.maxActivityTypeBytes - used + 1)))
        }
        try fewer.declare(String(repeating: "z", count: Manifest.maxActivityTypeBytes - used))
        #expect(fewer.activityTypes.reduce(0) { $0 + $1.utf8.count } == Manifest.maxActivityTypeBytes)
        // Declaring one already declared is harmless at the limit.
        try more.declare(manifest.activityTypes[0])
    }

    /// The largest payload the embedded engine carries fits PAYLOAD.
    @Test func payloadCarriesTheLargestActivityPayload() throws {
        let frame = AgentFrame(.payload([UInt8](repeating: 0xA5, count: ActivityCoding.maxPayloadSize)), requestID: 3)
        let bytes = try frame.encoded()
        #expect(bytes.count <= AgentFrame.maxSize)
        #expect(try AgentFrame(decoding: bytes, from: .app) == frame)
    }

    @Test func theHeaderIsAsDocumented() throws {
        let bytes = try AgentFrame(.ok, requestID: 0x0102_0304).encoded()
        #expect(bytes == [1, 13, 0, 0, 1, 2, 3, 4])
    }

    static func refusal(_ bytes: [UInt8], from sender: AgentMessage.Sender = .app) -> AgentFrameError? {
        do {
            _ = try AgentFrame(decoding: bytes, from: sender)
            return nil
        } catch {
            return error
        }
    }

    static func isMalformed(_ e: AgentFrameError?) -> Bool {
        if case .malformed? = e { return true }
        return false
    }

    @Test func brokenHeadersAreMalformed() throws {
        let ok = try AgentFrame(.ok, requestID: 5).encoded()
        #expect(Self.isMalformed(Self.refusal([])))
        #expect(Self.isMalformed(Self.refusal(Array(ok.prefix(7)))))
        #expect(Self.isMalformed(Self.refusal([2] + ok.dropFirst())))  // version
        var flagged = ok
        flagged[3] = 1
        #expect(Self.isMalformed(Self.refusal(flagged)))
        #expect(Self.isMalformed(Self.refusal(ok + [UInt8](repeating: 0, count: AgentFrame.maxSize))))
    }

    @Test func anUnknownTypeIsToldApartSoItCanBeAnswered() {
        #expect(Self.refusal([1, 200, 0, 0, 0, 0, 0, 9]) == .unknownType(200, requestID: 9))
    }

    @Test func aMessageFromTheWrongSideIsMalformed() throws {
        let welcome = try AgentFrame(Self.samples[1].0, requestID: 1).encoded()
        #expect(Self.isMalformed(Self.refusal(welcome, from: .app)))
        let fetch = try AgentFrame(.fetch(Self.id), requestID: 1).encoded()
        #expect(Self.isMalformed(Self.refusal(fetch, from: .agent)))
    }

    @Test func requestIDsFollowTheKind() throws {
        #expect(Self.isMalformed(Self.refusal(try AgentFrame(.fetch(Self.id), requestID: 0).encoded())))
        #expect(Self.isMalformed(Self.refusal(try AgentFrame(.confirm(Self.id), requestID: 3).encoded())))
    }

    @Test func grantsBodiesAreChecked() throws {
        func frame(_ kind: AgentMessage.Kind, _ body: [String: PropertyListValue]) -> [UInt8] {
            [1, kind.rawValue, 0, 0, 0, 0, 0, 1] + BinaryPropertyList.encode(.dictionary(body))
        }
        #expect(Self.isMalformed(Self.refusal(frame(.grant, [:]))))
        #expect(Self.isMalformed(Self.refusal(frame(.grant, ["url": .string("")]))))
        #expect(Self.isMalformed(Self.refusal(frame(.revoke, ["url": .data([1])]))))
        for path in [Array("doc/1/a".utf8), Array("/doc/1/a\0b".utf8), [], [UInt8](repeating: 0x2F, count: 4097)] {
            #expect(Self.isMalformed(Self.refusal(frame(.granted, ["path": .data(path)]), from: .agent)), "\(path.count)")
        }
        #expect(Self.isMalformed(Self.refusal(frame(.granted, ["path": .string("/doc/1/a")]), from: .agent)))
        // Only apps ask, only the agent answers.
        #expect(Self.isMalformed(Self.refusal(frame(.grant, ["url": .string("file:///a")]), from: .agent)))
        #expect(Self.isMalformed(Self.refusal(frame(.granted, ["path": .data(Array("/a".utf8))]), from: .app)))
        #expect(AgentMessage.Kind.grant.revision == 4 && AgentMessage.Kind.granted.revision == 4 && AgentMessage.Kind.revoke.revision == 4)
    }

    @Test func bodiesAreChecked() throws {
        func frame(_ kind: AgentMessage.Kind, _ body: [String: PropertyListValue], id: UInt32 = 1) -> [UInt8] {
            [1, kind.rawValue, 0, 0, 0, 0, 0, UInt8(id)] + BinaryPropertyList.encode(.dictionary(body))
        }
        #expect(Self.isMalformed(Self.refusal(frame(.fetch, [:]))))  // missing id
        #expect(Self.isMalformed(Self.refusal(frame(.fetch, ["activityID": .data([1, 2])]))))
        #expect(Self.isMalformed(Self.refusal(frame(.fetch, ["activityID": .string("x")]))))
        #expect(Self.isMalformed(Self.refusal(frame(.hello, ["protocol": .integer(1), "bundle": .string("no"), "team": .string("A1"),
                                                             "types": .array([]), "pid": .integer(1)]))))
        #expect(Self.isMalformed(Self.refusal(frame(.advertise, ["activityID": .data(Self.id.bytes), "type": .string(""),
                                                                 "bundle": .string("com.a.b"), "team": .string("T")], id: 0))))
        #expect(Self.isMalformed(Self.refusal([1, AgentMessage.Kind.ok.rawValue, 0, 0, 0, 0, 0, 1]
                                              + BinaryPropertyList.encode(.array([])))))
        #expect(Self.isMalformed(Self.refusal([1, AgentMessage.Kind.ok.rawValue, 0, 0, 0, 0, 0, 1, 0x62, 0x70])))
        // Unknown keys are ignored.
        #expect(Self.refusal(frame(.fetch, ["activityID": .data(Self.id.bytes), "later": .boolean(true)])) == nil)
        // CONTINUE's activation token: 1–256 bytes, no control character, a string.
        let continued = try AgentFrame(.continueActivity(Self.samples.compactMap { message, _ -> RemoteActivity? in
            if case .continueActivity(let r, _) = message { r } else { nil } }[0])).encoded()
        guard case .dictionary(var body) = try BinaryPropertyList.decode(Array(continued[8...])) else {
            Issue.record("CONTINUE's body is no dictionary")
            return
        }
        for bad: PropertyListValue in [.string(""), .string(String(repeating: "t", count: 257)), .string("a\nb"), .integer(1)] {
            body["activationToken"] = bad
            #expect(Self.isMalformed(Self.refusal(frame(.continueActivity, body, id: 0), from: .agent)), "\(bad)")
        }
        body["activationToken"] = .string(String(repeating: "t", count: 256))
        #expect(Self.refusal(frame(.continueActivity, body, id: 0), from: .agent) == nil)
        // FORGET: identifiers (1-512, none empty) or all, not both; INDEX: a payload, as an event.
        for bad: [String: PropertyListValue] in [[:], ["identifiers": .array([])], ["identifiers": .array([.string("")])],
                                                 ["all": .boolean(true), "identifiers": .array([.string("a")])],
                                                 ["identifiers": .array(Array(repeating: .string("a"), count: 513))],
                                                 ["identifiers": .string("a")], ["all": .boolean(false)]] {
            #expect(Self.isMalformed(Self.refusal(frame(.forget, bad))), "\(bad)")
        }
        #expect(Self.refusal(frame(.forget, ["all": .boolean(true)])) == nil)
        let index: [String: PropertyListValue] = ["activityID": .data(Self.id.bytes), "payload": .data([1, 2])]
        #expect(Self.refusal(frame(.index, index, id: 0)) == nil)
        #expect(Self.isMalformed(Self.refusal(frame(.index, index, id: 5))), "an event carries no request id")
        #expect(Self.isMalformed(Self.refusal(frame(.index, ["activityID": .data(Self.id.bytes)], id: 0))))
        #expect(Self.isMalformed(Self.refusal(frame(.index, index, id: 0), from: .agent)), "only apps send INDEX")
        // BRINGING: an event of the agent's, 0 ≤ received ≤ total, every key there and of its type.
        let bringing: [String: PropertyListValue] = ["activityID": .data(Self.id.bytes), "name": .string("plan.txt"),
                                                     "received": .integer(5), "total": .integer(9)]
        #expect(Self.refusal(frame(.bringing, bringing, id: 0), from: .agent) == nil)
        #expect(Self.isMalformed(Self.refusal(frame(.bringing, bringing, id: 0), from: .app)), "only the agent sends BRINGING")
        #expect(Self.isMalformed(Self.refusal(frame(.bringing, bringing, id: 5), from: .agent)), "an event carries no request id")
        for (key, bad): (String, PropertyListValue?) in [("received", .integer(10)), ("received", .integer(-1)), ("total", .integer(-1)),
                                                          ("total", .string("9")), ("name", .integer(1)), ("name", .string(String(repeating: "n", count: 4097))),
                                                          ("activityID", .data([1])), ("activityID", nil), ("name", nil),
                                                          ("received", nil), ("total", nil)] {
            var body = bringing
            body[key] = bad
            #expect(Self.isMalformed(Self.refusal(frame(.bringing, body, id: 0), from: .agent)), "\(key): \(String(describing: bad))")
        }
    }

    /// Found with the agent-message fuzz target's property (what is accepted
    /// re-encodes, and m2 = decode(encode(m1)) equals decode(encode(m2))).
    @Test func datesKeepEveryMillisecondOrAreRefused() throws {
        func remote(firstSeen: Int64) -> [UInt8] {
            var activity = AgentBodyCoding.remote(Self.remote)
            activity["firstSeen"] = .integer(firstSeen)
            return [1, AgentMessage.Kind.remote.rawValue, 0, 0, 0, 0, 0, 0]
                + BinaryPropertyList.encode(.dictionary(["change": .integer(0), "activity": .dictionary(activity)]))
        }
        // 2^52 ms on, a Timestamp moved by 1 ms on each relay.
        #expect(Self.isMalformed(Self.refusal(remote(firstSeen: 4_438_484_538_790_688), from: .agent)))
        #expect(Self.isMalformed(Self.refusal(remote(firstSeen: -1), from: .agent)))
        #expect(Self.isMalformed(Self.refusal(remote(firstSeen: AgentBodyCoding.dates.upperBound + 1), from: .agent)))
        // Within the range every millisecond comes back exactly, to the byte.
        for ms in [0, 1_700_000_000_123, AgentBodyCoding.dates.upperBound - 1, AgentBodyCoding.dates.upperBound] {
            let bytes = remote(firstSeen: ms)
            #expect(try AgentFrame(decoding: bytes, from: .agent).encoded() == bytes, "\(ms)")
        }
        // The encoder clamps to the same range, so what it writes is read back.
        var advert = Advertisement(activityID: Self.id, activityType: "t", title: nil, bundleIdentifier: "b", teamIdentifier: "T",
                                   webpageURL: nil, expirationDate: Timestamp(timeIntervalSince1970: -5), supportsContinuationStreams: false)
        for (date, ms) in [(Timestamp(timeIntervalSince1970: -5), 0), (Timestamp(timeIntervalSince1970: 1e15), AgentBodyCoding.dates.upperBound)] {
            advert.expirationDate = date
            let decoded = try AgentFrame(decoding: try AgentFrame(.advertise(advert)).encoded(), from: .app)
            guard case .advertise(let a?) = decoded.message else { Issue.record("not an advertisement"); continue }
            #expect(a.expirationDate == AgentBodyCoding.date(ms))
        }
    }

    @Test func aURLThatGrowsPastTheBoundWhenPercentEncodedIsRefused() throws {
        func advertise(url: String) -> [UInt8] {
            [1, AgentMessage.Kind.advertise.rawValue, 0, 0, 0, 0, 0, 0]
                + BinaryPropertyList.encode(.dictionary(["activityID": .data(Self.id.bytes), "type": .string("t"), "bundle": .string("b"),
                                                         "team": .string("T"), "url": .string(url)]))
        }
        // 3,020 bytes as sent, 9,020 as URL.absoluteString writes them.
        let refusal = Self.refusal(advertise(url: "https://example.com/" + String(repeating: " ", count: 3000)))
        #expect(Self.isMalformed(refusal))
        #expect(refusal?.message.contains("percent-encoded") == true, "\(String(describing: refusal))")
        // One that fits once encoded is kept, and sent on in that form.
        let decoded = try AgentFrame(decoding: advertise(url: "https://example.com/a b"), from: .app)
        guard case .advertise(let a?) = decoded.message else { Issue.record("not an advertisement"); return }
        #expect(a.webpageURL?.absoluteString == "https://example.com/a%20b")
        #expect(try AgentFrame(decoding: try decoded.encoded(), from: .app) == decoded)
    }

    /// A STATUS whose 512 remotes are one shared dictionary with 20
    /// references to one address: 2.5 KB within the reader's limits, yet
    /// 150 KB written out, so `encoded()` threw for an accepted message.
    @Test func aBodyThatWouldNotFitOnceWrittenOutIsRefused() throws {
        var objects: [[UInt8]] = []
        func add(_ o: [UInt8]) -> UInt16 { objects.append(o); return UInt16(objects.count - 1) }
        func ascii(_ s: String) -> [UInt8] { [0x50 | UInt8(s.utf8.count)] + Array(s.utf8) }
        func refs(_ r: [UInt16]) -> [UInt8] { r.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        func container(_ marker: UInt8, _ count: Int) -> [UInt8] {
            count < 15 ? [marker | UInt8(count)] : [marker | 0x0F, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
        }
        let keys = ["deviceID", "deviceName", "addresses", "verified", "lastHeard"].map { add(ascii($0)) }
        let address = add(ascii("a"))
        let values = [add([0x4F, 0x10, 0x10] + Array(0..<16)), add(ascii("d")),
                      add(container(0xA0, 20) + refs(Array(repeating: address, count: 20))), add([0x09]), add([0x10, 0])]
        let one = add(container(0xD0, 5) + refs(keys + values))
        let remotes = add(container(0xA0, 512) + refs(Array(repeating: one, count: 512)))
        let top: [(String, UInt16)] = [("deviceID", values[0]), ("deviceName", values[1]), ("role", add(ascii("full"))),
                                       ("channelPort", values[4]), ("beaconPort", values[4]), ("clients", values[4]),
                                       ("remotes", remotes), ("counters", add([0xD0]))]
        let topKeys = top.map { add(ascii($0.0)) }
        let root = add(container(0xD0, top.count) + refs(topKeys + top.map { $0.1 }))
        var body = Array("bplist00".utf8), offsets: [Int] = []
        for o in objects {
            offsets.append(body.count)
            body += o
        }
        let table = body.count
        for o in offsets { body += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        body += [0, 0, 0, 0, 0, 0, 2, 2] + [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]
            + [0, 0, 0, 0, 0, 0, 0, UInt8(root)] + [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]
        #expect(body.count < 3000)
        // The reader alone takes it (so only the new check refuses it) ...
        let limits = DecodingLimits(maxDepth: 8, maxObjects: 16_384, maxBytes: AgentFrame.maxSize)
        let (_, cost) = try BinaryPropertyList.decodeMeasured(body, limits: limits)
        #expect(cost.encodedSize > 150_000)
        // ... the codec does not.
        let refusal = Self.refusal([1, AgentMessage.Kind.status.rawValue, 0, 0, 0, 0, 0, 1] + body, from: .agent)
        #expect(Self.isMalformed(refusal))
        #expect(refusal?.message.contains("written out") == true, "\(String(describing: refusal))")
        // The same remotes written out one by one do not fit a datagram either.
        #expect(throws: HandoffError.self) {
            try AgentFrame(.status(AgentStatus(deviceID: Array(0..<16), deviceName: "d", role: .full, channelPort: 0, beaconPort: 0,
                                               clients: 0, remotes: Array(repeating: .init(deviceID: Array(0..<16), deviceName: "d",
                                                                                            addresses: Array(repeating: "a", count: 20),
                                                                                            verified: true, lastHeardMilliseconds: 0),
                                                                          count: 512),
                                               counters: [:])), requestID: 1).encoded()
        }
    }

    @Test func aSharedReferenceBombInABodyIsRefusedQuickly() {
        // Written by hand (encoding it would expand it): 6 arrays, each
        // holding the previous one 64 times over a 64-byte leaf: 64^6 leaves.
        var objects: [[UInt8]] = [[0x4F, 0x10, 0x40] + [UInt8](repeating: 7, count: 64)]
        for level in 1...6 { objects.append([0xAF, 0x10, 0x40] + [UInt8](repeating: UInt8(level - 1), count: 64)) }
        objects.append([0x4F, 0x10, 0x10] + Self.id.bytes)                 // 7
        objects.append([0x5A] + Array("activityID".utf8))                  // 8
        objects.append([0x51] + Array("x".utf8))                           // 9
        objects.append([0xD2, 8, 9, 7, 6])                                 // 10: the top dictionary
        var body = Array("bplist00".utf8)
        var offsets: [Int] = []
        for o in objects {
            offsets.append(body.count)
            body += o
        }
        let table = body.count
        for o in offsets { body += [UInt8(o >> 8), UInt8(o & 0xFF)] }
        body += [0, 0, 0, 0, 0, 0, 2, 1]
        body += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)] + [0, 0, 0, 0, 0, 0, 0, 10]
        body += [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]
        #expect(body.count < 1000)
        let refusal = Self.refusal([1, AgentMessage.Kind.fetch.rawValue, 0, 0, 0, 0, 0, 1] + body)
        #expect(Self.isMalformed(refusal))
        #expect(refusal?.message.contains("shared objects are counted") == true, "\(String(describing: refusal))")
    }
}

/// The local protocol's socket.
@Suite struct LocalSocketTests {
    static func temporaryDirectory() -> String {
        var template = Array("/tmp/handoff-local-XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
    }

    @Test func datagramsAndDescriptorsTravel() throws {
        let dir = Self.temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/handoff/agent.sock"
        try AgentSocketPath.prepareDirectory(for: path)
        let listener = try LocalSocket.listen(at: path)
        defer { close(listener) }
        var info = stat()
        #expect(lstat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
        let client = try LocalSocket.connect(to: path, timeout: 2)
        defer { close(client) }
        var p = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 2000) == 1)
        // Closed once: a second close could close a descriptor a test
        // running beside this one has opened since.
        var server = try #require(LocalSocket.accept(listener))
        defer { if server >= 0 { close(server) } }
        #expect(LocalSocket.credentials(of: server)?.uid == getuid())
        #expect(LocalSocket.credentials(of: server)?.pid == getpid())

        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        let bytes = try AgentFrame(.stream, requestID: 4).encoded()
        #expect(try LocalSocket.send(server, bytes, passing: pair[1]))
        close(pair[1])
        p = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        #expect(poll(&p, 1, 2000) == 1)
        guard case .message(let got, let fds) = LocalSocket.receive(client) else {
            Issue.record("no message")
            return
        }
        #expect(got == bytes && fds.count == 1)
        // The passed end is connected to pair[0].
        #expect(write(fds[0], "hi", 2) == 2)
        var buffer = [UInt8](repeating: 0, count: 2)
        #expect(read(pair[0], &buffer, 2) == 2 && buffer == Array("hi".utf8))
        close(fds[0])
        close(pair[0])
        #expect(fcntl(client, F_GETFD) & FD_CLOEXEC != 0)

        // Nothing more: would block; then the peer closes.
        if case .wouldBlock = LocalSocket.receive(client) {} else { Issue.record("expected wouldBlock") }
        close(server)
        server = -1
        p = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
        _ = poll(&p, 1, 2000)
        if case .closed = LocalSocket.receive(client) {} else { Issue.record("expected closed") }
    }

    @Test func aSecondAgentIsRefusedAndAStaleSocketReplaced() throws {
        let dir = Self.temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/agent.sock"
        let first = try LocalSocket.listen(at: path)
        #expect(ChannelTest.failure { () throws(HandoffError) in close(try LocalSocket.listen(at: path)) }?.code == .invalidState)
        close(first)  // the file stays, nobody listens
        let second = try LocalSocket.listen(at: path)
        close(second)
        unlink(path)
        #expect(ChannelTest.failure { () throws(HandoffError) in close(try LocalSocket.connect(to: path, timeout: 1)) }?.code
                == .connectionUnavailable)
    }

    @Test func aLinkedOrOpenDirectoryIsRefused() throws {
        let dir = Self.temporaryDirectory()
        defer { _ = try? FileManager.default.removeItem(atPath: dir) }
        mkdir(dir + "/real", 0o700)
        symlink(dir + "/real", dir + "/link")
        #expect(ChannelTest.failure { () throws(HandoffError) in try AgentSocketPath.prepareDirectory(for: dir + "/link/agent.sock") }?.code
                == .permission)
        #expect(ChannelTest.failure { () throws(HandoffError) in try AgentSocketPath.checkBeforeConnecting(dir + "/link/agent.sock") }?.code
                == .permission)
        mkdir(dir + "/open", 0o777)
        chmod(dir + "/open", 0o777)
        #expect(ChannelTest.failure { () throws(HandoffError) in try AgentSocketPath.prepareDirectory(for: dir + "/open/agent.sock") }?.code
                == .permission)
    }

    @Test func thePathFollowsTheEnvironment() {
        #expect(AgentSocketPath.resolve(["XDG_RUNTIME_DIR": "/run/user/1000"]) == "/run/user/1000/handoff/agent.sock")
        #expect(AgentSocketPath.resolve(["XDG_RUNTIME_DIR": "/run/user/1000", "HANDOFF_AGENT_SOCKET": "/tmp/a.sock"]) == "/tmp/a.sock")
        #expect(AgentSocketPath.resolve([:]) == nil)
        #expect(AgentSocketPath.resolve(["XDG_RUNTIME_DIR": "relative"]) == nil)
    }

    @Test func anOversizedDatagramIsTruncatedNotMisread() throws {
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue | SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
        defer { close(pair[0]); close(pair[1]) }
        var size = Int32(1 << 20)
        setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(4))
        let big = [UInt8](repeating: 1, count: AgentFrame.maxSize + 100)
        #expect(try LocalSocket.send(pair[0], big))
        if case .truncated = LocalSocket.receive(pair[1]) {} else { Issue.record("expected truncated") }
    }
}
