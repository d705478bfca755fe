// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffContinuity
@testable import HandoffRelay
@testable import HandoffModel
import HandoffTestSupport

/// What the library computes for each vector of the normative documents,
/// by the vector's name (`DocumentVectorTests`): bytes as lowercase hex,
/// anything else as the document writes it. Inputs are the documents'.
enum DocumentVectorRegistry {
    typealias Entries = [String: @Sendable () throws -> String]

    static let protocolDocument: Entries = payload
        .merging(urls) { a, _ in a }
        .merging(account) { a, _ in a }
        .merging(beacons) { a, _ in a }
        .merging(schedule) { a, _ in a }
        .merging(channel) { a, _ in a }
        .merging(pairing) { a, _ in a }
        .merging(codePairing) { a, _ in a }
        .merging(relay) { a, _ in a }

    static func hex(_ bytes: [UInt8]) -> String { DocumentVectors.hex(bytes) }
    static func run(_ start: Int, _ n: Int) -> [UInt8] { (start..<start + n).map { UInt8($0) } }

    // MARK: §2, §3

    /// §3's activity.
    static func shapesActivity() throws -> UserActivity {
        UserActivity(activityType: PayloadVectorActivity.activityType, activityID: PayloadVectorActivity.activityID,
                     state: PayloadVectorActivity.state)
    }

    /// §2 "URL text": what each text is carried as.
    static let urls: Entries = Dictionary(uniqueKeysWithValues: [
        "https://a/b c", "https://a/%41 b", "HTTPS://Example.COM/a", "https://bücher.de/x", "https://example.com",
        "https://example.com/./a/../b", "http://h:080/p", "http://h:080/p q", "https://example.com/p?q=é",
        "1https://a/", "https://a:b/",
    ].map { text in ("URL `\(text)`", { @Sendable in URLReference(string: text)?.absoluteString ?? "no URL" }) })

    static let payload: Entries = [
        "activity payload": { hex(try ActivityCoding.encode(try shapesActivity())) },
        "userInfo with null and a set": {
            hex(UserInfoCoding.encode(["gone": .null, "ids": .set([.string("a"), .integer(2), .integer(1)])]))
        },
    ]

    // MARK: §4

    static let account: Entries = [
        "beacon key": { hex(AccountFixtures.sequentialKey.derived.beaconKey) },
        "channel PSK": { hex(AccountFixtures.sequentialKey.derived.channelPSK) },
        "account ID": { AccountFixtures.sequentialKey.derived.accountID },
        "checksum": { hex(Array(Crypto.sha256(AccountFixtures.sequentialKey.bytes).prefix(4))) },
        "pairing code": { AccountFixtures.sequentialKey.pairingCode },
    ]

    // MARK: §5

    static func testBeacon(_ kind: Beacon.Kind, sequence: UInt64) -> Beacon { VectorBeacon.make(kind, sequence: sequence) }

    static let beacons: Entries = [
        "advert plaintext": { hex(try BeaconCodec.encode(testBeacon(.advert, sequence: 1))) },
        "advert packet": { hex(try BeaconCodec.seal(testBeacon(.advert, sequence: 1), key: run(0, 32), nonce: run(0, 12))) },
        "solicitation plaintext": { hex(try BeaconCodec.encode(testBeacon(.solicit, sequence: 2))) },
        "solicitation packet": { hex(try BeaconCodec.seal(testBeacon(.solicit, sequence: 2), key: run(0, 32), nonce: run(0, 12))) },
        "presence plaintext": { hex(try BeaconCodec.encode(testBeacon(.presence, sequence: 3))) },
        "presence packet": { hex(try BeaconCodec.seal(testBeacon(.presence, sequence: 3), key: run(0, 32), nonce: run(0, 12))) },
        "freshness verdicts": { freshnessVerdicts() },
        // §10: the advert with what a later revision may add, which this one reads past.
        "growth plaintext": { hex(try grownAdvert()) },
        "growth packet": { hex(AESGCM(key: run(0, 32)).seal(try grownAdvert(), aad: BeaconCodec.associatedData, nonce: run(0, 12))) },
    ]

    static func grownAdvert() throws -> [UInt8] {
        let plaintext = try BeaconCodec.encode(testBeacon(.advert, sequence: 1),
                                               extensions: [BeaconExtension(type: 0x7F, value: Array("future".utf8))],
                                               optionalFlags: 0x80)
        guard BeaconCodec.parse(plaintext) == testBeacon(.advert, sequence: 1) else {
            throw HandoffError(.invalidValue, "the grown advert does not read as the §5 advert")
        }
        return plaintext
    }

    /// One device's beacons in the order §5 lists them, all stamped now
    /// but the last (30.001 s old): the guard's verdict on each.
    static func freshnessVerdicts() -> String {
        let guardian = ReplayGuard()
        let now: UInt64 = 1_700_000_000_000
        let heard: [(UInt64, UInt64)] = [1, 1, 2, 1, 0, 3, 4, 5, 6, 7, 8, 9, 1, 2].map { ($0, now) } + [(10, now - 30_001)]
        return heard.map { sequence, timestamp in
            var beacon = testBeacon(.solicit, sequence: sequence)
            beacon.timestamp = timestamp
            return "\(sequence) \(guardian.check(beacon, nowMilliseconds: now))"
        }.joined(separator: ", ")
    }

    /// Seconds as the document writes them: `0`, `0.25`, `4`.
    static func seconds(_ times: [Double]) -> String {
        times.map { $0 == $0.rounded() ? String(Int($0)) : String($0) }.joined(separator: ", ")
    }

    /// Send times from a change, up to `horizon` s: the burst, then keep-alives.
    static func advertTimes(upTo horizon: Double) -> [Double] {
        let c = ContinuityConfiguration(account: AccountFixtures.sequentialKey,
                                        device: try! DeviceIdentity(id: String(repeating: "a0", count: 16), name: "Test Device", role: .full),
                                        beacons: BeaconTransportConfig())
        var times = c.burst
        while times.last! + c.keepaliveInterval <= horizon { times.append(times.last! + c.keepaliveInterval) }
        return times
    }

    static let schedule: Entries = [
        "advert send times in the first 10 s": { seconds(advertTimes(upTo: 10)) },
        "withdrawal send times": { seconds(ContinuityEngine.withdrawalBurst) },
        "solicitation send times": { seconds(ContinuityEngine.solicitBurst) },
        "pairing beacon send times in the first 5 s": {
            let limits = PairingLimits()
            return seconds((0...).lazy.map(limits.beaconTime).prefix { $0 <= 5 }.map { $0 })
        },
    ]

    // MARK: §6, §8

    static let channel: Entries = [
        "FETCH frame": { hex(Frame(type: 0x01, payload: run(0, 16)).encoded()) },
        "STREAM_OPEN frame": { hex(ExchangeMessage.streamOpen(ActivityID(bytes: run(0xB0, 16))).frame.encoded()) },
        "STREAM_ACCEPTED frame": { hex(ExchangeMessage.streamAccepted.frame.encoded()) },
        "DATA frame": { hex(streamFrame(StreamFrame.data, Array("hello".utf8))) },
        "END frame": { hex(streamFrame(StreamFrame.end, [])) },
    ]

    /// A stream frame as `StreamPump` writes it: its header, then the bytes.
    static func streamFrame(_ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
        var header = [UInt8](repeating: 0, count: StreamFrame.headerSize)
        header.withUnsafeMutableBytes { StreamFrame.writeHeader(type, payloadCount: payload.count, to: $0.baseAddress!) }
        return header + payload
    }

    // MARK: §9

    /// The comparison run of §9's vectors, every message recorded.
    struct ComparisonRun {
        var frames: [String: [UInt8]] = [:]
        var code = ""
        var keys: (sponsorToJoiner: [UInt8], joinerToSponsor: [UInt8]) = ([], [])

        init() throws {
            var (sponsor, joiner) = PairingVectorTests.machines()
            let commit = sponsor.start()
            let share = try joiner.receive(commit).send[0]
            let revealed = try sponsor.receive(share)
            let reveal = revealed.send[0]
            _ = try joiner.receive(reveal)
            let accept = try joiner.answer(true).send[0]
            _ = try sponsor.receive(accept)
            let key = try sponsor.answer(true).send[0]
            _ = try joiner.receive(key)
            let done = joiner.keyStored().send[0]
            frames = ["COMMIT": commit.encoded(), "SHARE": share.encoded(), "REVEAL": reveal.encoded(),
                      "ACCEPT": accept.payload, "KEY": key.payload, "DONE": done.payload]
            code = revealed.code.map { $0.digits } ?? ""
            let transcript = PairingCrypto.transcriptHash(commit: commit.payload, share: share.payload, reveal: reveal.payload)
            let z = X25519KeyPair.fromPrivateKey(run(0, 32))!.sharedSecret(with: Array(share.payload.prefix(32)))!
            keys = PairingCrypto.keys(sharedSecret: z, transcript: transcript)
            frames["TH"] = transcript
            frames["Z"] = z
        }
    }

    static let pairing: Entries = [
        "pairing beacon": { hex(PairingBeacon(port: 52380, sessionID: run(0xc0, 16)).encoded()) },
        "named pairing beacon": { hex(PairingBeacon(port: 52380, sessionID: run(0xc0, 16), name: "Ada's tablet").encoded()) },
        "pkS": { hex(X25519KeyPair.fromPrivateKey(run(0, 32))!.publicKey) },
        "pkJ": { hex(X25519KeyPair.fromPrivateKey(run(0x20, 32))!.publicKey) },
        "commitment C": { hex(PairingCrypto.commitment(publicKey: X25519KeyPair.fromPrivateKey(run(0, 32))!.publicKey, nonce: run(0xa0, 16))) },
        "COMMIT frame": { hex(try ComparisonRun().frames["COMMIT"]!) },
        "SHARE frame": { hex(try ComparisonRun().frames["SHARE"]!) },
        "REVEAL frame": { hex(try ComparisonRun().frames["REVEAL"]!) },
        "TH": { hex(try ComparisonRun().frames["TH"]!) },
        "Z": { hex(try ComparisonRun().frames["Z"]!) },
        "kSJ": { hex(try ComparisonRun().keys.sponsorToJoiner) },
        "kJS": { hex(try ComparisonRun().keys.joinerToSponsor) },
        "SAS": { try ComparisonRun().code },
        "KEY payload": { hex(try ComparisonRun().frames["KEY"]!) },
        "ACCEPT payload": { hex(try ComparisonRun().frames["ACCEPT"]!) },
        "DONE payload": { hex(try ComparisonRun().frames["DONE"]!) },
        "Damm table": { OneTimeCode.table.map(String.init).joined() },
    ]

    /// The one-time-code run of §9's vectors, every message recorded.
    struct CodeRun {
        var values: [String: [UInt8]] = [:]

        init() throws {
            let (code, x) = (CodePairingVectorTests.code, CodePairingVectorTests.x)
            var (sponsor, joiner) = CodePairingVectorTests.machines()
            let start = sponsor.start()
            let share = try joiner.receive(start).send[0]
            let confirm = try sponsor.receive(share).send[0]
            let accept = try joiner.receive(confirm).send[0]
            let key = try sponsor.receive(accept).send[0]
            let spake = PairingCrypto.spake(.a, code: code, sessionID: run(0xc0, 16), secret: x)
            let keys = PairingCrypto.keys(spake: spake.finish(peerShare: Array(share.payload.prefix(65)))!)
            values = ["code w": P256().bytes(P256().scalar(reducing: code.password)),
                      "CODE_START frame": start.encoded(), "CODE_SHARE frame": share.encoded(),
                      "CODE_CONFIRM frame": confirm.encoded(), "code kSJ": keys.sponsorToJoiner,
                      "code kJS": keys.joinerToSponsor, "code KEY payload": key.payload,
                      "code ACCEPT payload": accept.payload]
        }
    }

    static let codePairing: Entries = Dictionary(uniqueKeysWithValues: [
        "code w", "CODE_START frame", "CODE_SHARE frame", "CODE_CONFIRM frame", "code kSJ", "code kJS",
        "code KEY payload", "code ACCEPT payload",
    ].map { name in (name, { @Sendable in hex(try CodeRun().values[name]!) }) })

    // MARK: §11

    static let relayTopics = RelayTopics(accountKey: AccountFixtures.sequentialKey)
    static let relayPipe = RelayPipeID(bytes: run(0xC0, 16))!

    static let relay: Entries = [
        "relay account tag": { relayTopics.accountTag },
        "relay device tag": { relayTopics.deviceTag(run(0xA0, 16)) },
        "relay gone key": { hex(relayTopics.goneKey) },
        "relay device topic": { relayTopics.deviceTopic(run(0xA0, 16)) },
        "relay pipe topic": {
            relayTopics.pipeTopic(to: relayTopics.deviceTag(run(0xA0, 16)), from: relayTopics.deviceTag(run(0xD0, 16)), pipe: relayPipe)
        },
        "relay gone plaintext": { hex(relayGone.encoded()) },
        "relay gone message": { hex(relayGone.sealed(key: relayTopics.goneKey, nonce: run(0, 12))) },
        "relay OPEN frame": { hex(RelayPipeFrame(kind: .open, pipe: relayPipe, seq: 0, ack: 0, window: 65536).encoded()) },
        "relay DATA frame": {
            hex(RelayPipeFrame(kind: .data, pipe: relayPipe, seq: 1, ack: 1, window: 65536, payload: Array("hello".utf8)).encoded())
        },
        "relay RESET frame": { hex(RelayPipeFrame.reset(pipe: relayPipe, seq: 2, ack: 1, window: 0, reason: .idle).encoded()) },
    ]

    static let relayGone = RelayGoneMessage(deviceID: run(0xA0, 16), connected: 1_700_000_000_000, session: run(0xE0, 16))

    // MARK: docs/agent.md

    static let agentDocument: Entries = [
        "HELLO datagram": {
            let manifest = try Manifest(bundleIdentifier: "com.example.mapoff", teamIdentifier: "A1B2C3D4E5",
                                        activityTypes: ["com.example.mapoff.view-region"])
            return hex(try AgentFrame(.hello(AgentHello(manifest: manifest, pid: 4242)), requestID: 1).encoded())
        },
        "WELCOME datagram": {
            let welcome = AgentWelcome(agentVersion: "0.2.0", deviceID: run(0xA0, 16), deviceName: "Test Device",
                                       role: .full, accountID: AccountFixtures.sequentialKey.derived.accountID)
            return hex(try AgentFrame(.welcome(welcome), requestID: 1).encoded())
        },
        "GRANT datagram": {
            hex(try AgentFrame(.grant("file:///home/ada/Downloads/Handoff/plan.odt"), requestID: 7).encoded())
        },
        "GRANTED datagram": {
            hex(try AgentFrame(.granted(Array("/run/user/1000/doc/3f2a91c4/plan.odt".utf8)), requestID: 7).encoded())
        },
        "REVOKE datagram": {
            hex(try AgentFrame(.revoke("file:///home/ada/Downloads/Handoff/plan.odt"), requestID: 8).encoded())
        },
    ]
}
