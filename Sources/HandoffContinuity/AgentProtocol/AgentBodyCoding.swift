// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

/// Message bodies of the local protocol as property list dictionaries
/// (docs/agent.md §3 "Messages"): ids as 16-byte data, dates as integer
/// milliseconds since the Unix epoch, error codes as integers.
enum AgentBodyCoding {
    typealias Body = [String: PropertyListValue]

    /// Longest string in a body, in UTF-8 bytes, and most entries of an array.
    static let maxString = 4096
    static let maxArray = 512
    /// CONTINUE's activation token: the agent passes on only 1–256 bytes.
    static let maxActivationToken = 256
    /// Dates are 0 ... the end of year 9999, in ms. Up to there a Timestamp (a
    /// Double of seconds) gives back every millisecond exactly; from 2^52 ms
    /// on a round trip can move it by one, so a relayed date would drift.
    static let dates: ClosedRange<Int64> = 0...253_402_300_799_999

    // MARK: Encoding

    static func body(of message: AgentMessage) -> Body? {
        switch message {
        case .hello(let h):
            var b: Body = ["protocol": .integer(Int64(h.revisions.lowerBound)), "revision": .integer(Int64(h.revisions.upperBound)),
                           "bundle": .string(h.manifest.bundleIdentifier),
                           "team": .string(h.manifest.teamIdentifier), "types": .array(h.manifest.activityTypes.map { .string($0) }),
                           "pid": .integer(Int64(h.pid)), "observer": .boolean(h.observer)]
            // Optional (docs/agent.md §13): an earlier agent ignores it.
            if !h.manifest.webDomains.isEmpty { b["domains"] = .array(h.manifest.webDomains.map { .string($0.description) }) }
            return b
        case .welcome(let w):
            return ["agent": .string(w.agentVersion), "deviceID": .data(w.deviceID), "deviceName": .string(w.deviceName),
                    "role": .string(w.role.name), "accountID": .string(w.accountID), "revision": .integer(Int64(w.revision))]
        case .advertise(let a?):
            var b: Body = ["activityID": .data(a.activityID.bytes), "type": .string(a.activityType),
                           "bundle": .string(a.bundleIdentifier), "team": .string(a.teamIdentifier),
                           "streams": .boolean(a.supportsContinuationStreams)]
            b["title"] = a.title.map { .string($0) }
            b["url"] = a.webpageURL.map { .string($0.absoluteString) }
            b["expiration"] = a.expirationDate.map { .integer(milliseconds($0)) }
            return b
        case .advertise(nil), .stream, .ok, .statusRequest:
            return nil
        case .remote(let change):
            let number: Int64 = switch change {
            case .available: 0
            case .updated: 1
            case .withdrawn: 2
            }
            return ["change": .integer(number), "activity": .dictionary(remote(change.remote))]
        case .offer(let id, let payload):
            var b: Body = ["activityID": .data(id.bytes)]
            b["payload"] = payload.map { .data($0) }
            return b
        case .index(let id, let payload):
            return ["activityID": .data(id.bytes), "payload": .data(payload)]
        case .forget(.identifiers(let ids)):
            return ["identifiers": .array(ids.map { .string($0) })]
        case .forget(.all):
            return ["all": .boolean(true)]
        case .bringing(let b):
            return ["activityID": .data(b.activityID.bytes), "name": .string(truncateUTF8(b.name, to: Self.maxString)),
                    "received": .integer(Int64(clamping: b.received)), "total": .integer(Int64(clamping: b.total))]
        case .grant(let url), .revoke(let url):
            return ["url": .string(url)]
        case .granted(let path):
            return ["path": .data(path)]
        case .fetch(let id), .provide(let id), .confirm(let id), .continued(let id), .openStream(let id),
             .acceptStream(let id), .choose(let id), .served(let id):
            return ["activityID": .data(id.bytes)]
        case .payload(let bytes):
            return ["payload": .data(bytes)]
        case .continueActivity(let r, let token):
            var b: Body = ["activity": .dictionary(remote(r))]
            if let token { b["activationToken"] = .string(token) }
            return b
        case .error(let e):
            return ["code": .integer(Int64(e.code.rawValue)), "message": .string(truncateUTF8(e.message, to: 1024))]
        case .undelivered(let id, let e):
            return ["activityID": .data(id.bytes), "code": .integer(Int64(e.code.rawValue)),
                    "message": .string(truncateUTF8(e.message, to: 1024))]
        case .status(let s):
            let remotes: [PropertyListValue] = s.remotes.map { r in
                var d: Body = ["deviceID": .data(r.deviceID), "deviceName": .string(r.deviceName),
                               "addresses": .array(r.addresses.map { .string($0) }), "verified": .boolean(r.verified),
                               "lastHeard": .integer(r.lastHeardMilliseconds), "role": .string(r.role.name)]
                d["revision"] = r.revision.map { .integer(Int64($0)) }
                if let e = r.lastError {
                    d["lastError"] = .dictionary(["address": .string(e.address), "code": .integer(Int64(e.error.code.rawValue)),
                                                  "message": .string(truncateUTF8(e.error.message, to: 1024)),
                                                  "ago": .integer(e.milliseconds)])
                }
                return .dictionary(d)
            }
            return ["deviceID": .data(s.deviceID), "deviceName": .string(s.deviceName), "role": .string(s.role.name),
                    "channelPort": .integer(Int64(s.channelPort)), "beaconPort": .integer(Int64(s.beaconPort)),
                    "clients": .integer(Int64(s.clients)), "remotes": .array(remotes),
                    "counters": .dictionary(s.counters.mapValues { .integer($0) }),
                    "beacons": .dictionary(beacons(s.beacons)),
                    "roster": .array(s.roster.map { d in
                        .dictionary(["deviceID": .data(d.deviceID), "deviceName": .string(d.deviceName),
                                     "role": .string(d.role.name), "online": .boolean(d.online),
                                     "lastSeen": .integer(Int64(clamping: d.lastSeen))])
                    }),
                    "sources": .array(s.sources.prefix(Self.maxSources).map { .dictionary(source($0)) })]
        }
    }

    /// STATUS `sources`: at most this many (a source per configured peer).
    static let maxSources = 64

    /// STATUS `sources[]`: a peer source's state.
    static func source(_ p: PeerSourceState) -> Body {
        var d: Body = ["kind": .string(p.kind.rawValue), "name": .string(truncateUTF8(p.name, to: 1024)),
                       "condition": .string(p.condition.rawValue),
                       "addresses": .array(p.addresses.prefix(PeerSources.maxAddresses).map { .string($0) }),
                       "peers": .integer(Int64(p.peers))]
        d["message"] = p.message.map { .string(truncateUTF8($0, to: 1024)) }
        return d
    }

    static func source(_ f: Fields) throws(HandoffError) -> PeerSourceState {
        // Kinds and conditions a newer agent adds are read as the nearest known.
        let kind = PeerSourceState.Kind(rawValue: try f.string("kind")) ?? .peer
        let condition = PeerSourceState.Condition(rawValue: try f.string("condition")) ?? .failed
        return PeerSourceState(kind: kind, name: try f.string("name"), condition: condition,
                               addresses: Array(try f.strings("addresses").prefix(PeerSources.maxAddresses)),
                               peers: Int(try f.integer("peers", in: 0...Int64(Int32.max))),
                               message: try f.optionalString("message"))
    }

    /// STATUS `remotes[].lastError`.
    static func verificationError(_ f: Fields) throws(HandoffError) -> AgentStatus.VerificationError {
        let code = try f.integer("code", in: 1...Int64(Int32.max))
        return AgentStatus.VerificationError(address: try f.string("address"),
                                             error: HandoffError(HandoffError.Code(rawValue: Int32(code)), try f.string("message")),
                                             milliseconds: try f.integer("ago", in: 0...Int64.max))
    }

    /// STATUS `beacons`: the engine's tally (`BeaconTally`).
    static func beacons(_ t: BeaconTally) -> Body {
        let stale: [PropertyListValue] = t.staleSenders.map { s in
            .dictionary(["deviceID": .data(deviceBytes(s.deviceID)), "deviceName": .string(s.name),
                         "host": .string(s.host), "skew": .integer(s.skewMilliseconds)])
        }
        return ["packets": .integer(Int64(t.packets)), "accepted": .integer(Int64(t.accepted)),
                "foreign": .integer(Int64(t.foreign)), "own": .integer(Int64(t.own)),
                "duplicates": .integer(Int64(t.duplicates)), "replays": .integer(Int64(t.replays)),
                "stale": .integer(Int64(t.stale)), "foreignSources": .array(t.foreignSources.map { .string($0) }),
                "replaySources": .array(t.replaySources.map { .string($0) }), "staleSenders": .array(stale)]
    }

    static func beacons(_ b: Fields) throws(HandoffError) -> BeaconTally {
        var t = BeaconTally()
        let counts = 0...Int64(Int32.max)
        t.packets = Int(try b.integer("packets", in: counts))
        t.accepted = Int(try b.integer("accepted", in: counts))
        t.foreign = Int(try b.integer("foreign", in: counts))
        t.own = Int(try b.integer("own", in: counts))
        t.duplicates = Int(try b.integer("duplicates", in: counts))
        t.replays = Int(try b.integer("replays", in: counts))
        t.stale = Int(try b.integer("stale", in: counts))
        t.foreignSources = try b.strings("foreignSources")
        t.replaySources = try b.strings("replaySources")
        for value in try b.array("staleSenders") {
            guard case .dictionary(let d) = value else { throw malformed("staleSenders holds dictionaries") }
            let s = Fields(d)
            t.staleSenders.append(BeaconTally.StaleSender(deviceID: hex(try s.id("deviceID")), name: try s.string("deviceName"),
                                                          host: try s.string("host"),
                                                          skewMilliseconds: try s.integer("skew", in: -dates.upperBound...dates.upperBound)))
        }
        return t
    }

    static func remote(_ r: RemoteActivity) -> Body {
        var b: Body = ["deviceID": .data(deviceBytes(r.deviceID)), "deviceName": .string(r.deviceName),
                       "activityID": .data(r.activityID.bytes), "type": .string(r.activityType),
                       "team": .string(r.teamIdentifier), "bundle": .string(r.bundleIdentifier),
                       "streams": .boolean(r.supportsContinuationStreams), "webOnly": .boolean(r.isWebOnly),
                       "firstSeen": .integer(milliseconds(r.firstSeen))]
        b["title"] = r.title.map { .string($0) }
        b["url"] = r.webpageURL.map { .string($0.absoluteString) }
        b["expiration"] = r.expirationDate.map { .integer(milliseconds($0)) }
        return b
    }

    // MARK: Decoding

    static func message(_ kind: AgentMessage.Kind, _ body: Body, from sender: AgentMessage.Sender) throws(HandoffError) -> AgentMessage {
        let b = Fields(body)
        switch kind {
        case .hello:
            // `protocol`: the lowest revision the app speaks; `revision`
            // (from revision 2 on) the highest, absent for a revision-1 app.
            let lowest = Int(try b.integer("protocol", in: 1...255))
            let highest = Int(try b.optionalInteger("revision", in: Int64(lowest)...255) ?? Int64(lowest))
            let types = try b.strings("types")
            var manifest = try Manifest(bundleIdentifier: try b.string("bundle"), teamIdentifier: try b.string("team"),
                                        activityTypes: types)
            if body["domains"] != nil {
                for domain in try b.strings("domains") { try manifest.declare(webDomain: domain) }
            }
            return .hello(AgentHello(revisions: lowest...highest, manifest: manifest,
                                     pid: Int32(try b.integer("pid", in: 0...Int64(Int32.max))),
                                     observer: try b.optionalBool("observer") ?? false))
        case .welcome:
            guard let role = DeviceRole(name: try b.string("role")) else { throw malformed("role is full or send-only") }
            return .welcome(AgentWelcome(agentVersion: try b.string("agent"), deviceID: try b.id("deviceID"),
                                         deviceName: try b.string("deviceName"), role: role,
                                         accountID: try b.string("accountID"),
                                         revision: Int(try b.optionalInteger("revision", in: 1...255) ?? Int64(ProtocolRevision.unannounced))))
        case .advertise:
            guard !body.isEmpty else { return .advertise(nil) }
            let type = try b.string("type")
            try Identifier.checkActivityType(type)
            return .advertise(Advertisement(activityID: ActivityID(bytes: try b.id("activityID")), activityType: type,
                                            title: try b.optionalString("title"), bundleIdentifier: try b.string("bundle"),
                                            teamIdentifier: try b.string("team"), webpageURL: try b.optionalURL("url"),
                                            expirationDate: try b.optionalDate("expiration"),
                                            supportsContinuationStreams: try b.optionalBool("streams") ?? false))
        case .remote:
            let activity = try remote(Fields(try b.dictionary("activity")))
            switch try b.integer("change", in: 0...2) {
            case 0: return .remote(.available(activity))
            case 1: return .remote(.updated(activity))
            default: return .remote(.withdrawn(activity))
            }
        case .fetch: return .fetch(ActivityID(bytes: try b.id("activityID")))
        case .provide: return .provide(ActivityID(bytes: try b.id("activityID")))
        case .confirm: return .confirm(ActivityID(bytes: try b.id("activityID")))
        case .continued: return .continued(ActivityID(bytes: try b.id("activityID")))
        case .openStream: return .openStream(ActivityID(bytes: try b.id("activityID")))
        case .acceptStream: return .acceptStream(ActivityID(bytes: try b.id("activityID")))
        case .choose: return .choose(ActivityID(bytes: try b.id("activityID")))
        case .served: return .served(ActivityID(bytes: try b.id("activityID")))
        case .offer:
            let payload = try b.optionalData("payload")
            if let payload, payload.count > ActivityCoding.maxPayloadSize {
                throw malformed("an offered payload is at most \(ActivityCoding.maxPayloadSize) bytes")
            }
            return .offer(ActivityID(bytes: try b.id("activityID")), payload)
        case .index:
            let payload = try b.data("payload")
            guard payload.count <= ActivityCoding.maxPayloadSize else {
                throw malformed("an indexed payload is at most \(ActivityCoding.maxPayloadSize) bytes")
            }
            return .index(ActivityID(bytes: try b.id("activityID")), payload)
        case .forget:
            if try b.optionalBool("all") == true {
                guard body["identifiers"] == nil else { throw malformed("FORGET names identifiers or all, not both") }
                return .forget(.all)
            }
            let ids = try b.strings("identifiers")
            guard !ids.isEmpty, !ids.contains(where: \.isEmpty) else {
                throw malformed("FORGET names 1-\(Self.maxArray) non-empty identifiers, or all")
            }
            return .forget(.identifiers(ids))
        case .bringing:
            let total = try b.integer("total", in: 0...Int64.max)
            let received = try b.integer("received", in: 0...total)
            return .bringing(AgentBringing(activityID: ActivityID(bytes: try b.id("activityID")), name: try b.string("name"),
                                           received: UInt64(received), total: UInt64(total)))
        case .grant: return .grant(try documentURL(b))
        case .revoke: return .revoke(try documentURL(b))
        case .granted:
            let path = try b.data("path")
            guard path.first == UInt8(ascii: "/"), !path.contains(0), path.count <= maxString else {
                throw malformed("GRANTED's path is an absolute path of at most \(maxString) bytes without NUL")
            }
            return .granted(path)
        case .payload: return .payload(try b.data("payload"))
        case .stream: return .stream
        case .ok: return .ok
        case .continueActivity:
            let token = try b.optionalString("activationToken")
            if let token, token.isEmpty || token.utf8.count > Self.maxActivationToken
                || token.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                throw malformed("activationToken is 1–\(Self.maxActivationToken) bytes without control characters")
            }
            return .continueActivity(try remote(Fields(try b.dictionary("activity"))), activationToken: token)
        case .error:
            let code = try b.integer("code", in: 1...Int64(Int32.max))
            return .error(HandoffError(HandoffError.Code(rawValue: Int32(code)), try b.string("message")))
        case .undelivered:
            let code = try b.integer("code", in: 1...Int64(Int32.max))
            return .undelivered(ActivityID(bytes: try b.id("activityID")),
                                HandoffError(HandoffError.Code(rawValue: Int32(code)), try b.string("message")))
        case .status:
            guard sender == .agent else { return .statusRequest }
            var remotes: [AgentStatus.Remote] = []
            for value in try b.array("remotes") {
                guard case .dictionary(let d) = value else { throw malformed("remotes holds dictionaries") }
                let r = Fields(d)
                remotes.append(AgentStatus.Remote(deviceID: try r.id("deviceID"), deviceName: try r.string("deviceName"),
                                                  addresses: try r.strings("addresses"), verified: try r.bool("verified"),
                                                  lastHeardMilliseconds: try r.integer("lastHeard", in: 0...Int64.max),
                                                  role: try r.optionalString("role").map { name throws(HandoffError) in
                                                      guard let role = DeviceRole(name: name) else { throw malformed("role is full or send-only") }
                                                      return role
                                                  } ?? .full,
                                                  lastError: try r.optionalDictionary("lastError").map { d throws(HandoffError) in
                                                      try verificationError(Fields(d))
                                                  },
                                                  revision: try r.optionalInteger("revision", in: 1...255).map { Int($0) }))
            }
            var counters: [String: Int64] = [:]
            for (key, value) in try b.dictionary("counters") {
                guard case .integer(let n) = value else { throw malformed("counters are integers") }
                counters[key] = n
            }
            var roster: [AgentStatus.RosterDevice] = []
            if b.body["roster"] != nil {
                for value in try b.array("roster") {
                    guard case .dictionary(let d) = value else { throw malformed("roster holds dictionaries") }
                    let r = Fields(d)
                    guard let role = DeviceRole(name: try r.string("role")) else { throw malformed("role is full or send-only") }
                    roster.append(AgentStatus.RosterDevice(deviceID: try r.id("deviceID"), deviceName: try r.string("deviceName"),
                                                           role: role, online: try r.bool("online"),
                                                           lastSeen: UInt64(try r.integer("lastSeen", in: 0...Int64.max))))
                }
            }
            var sources: [PeerSourceState] = []
            if b.body["sources"] != nil {
                for value in try b.array("sources").prefix(Self.maxSources) {
                    guard case .dictionary(let d) = value else { throw malformed("sources holds dictionaries") }
                    sources.append(try source(Fields(d)))
                }
            }
            guard let role = DeviceRole(name: try b.string("role")) else { throw malformed("role is full or send-only") }
            return .status(AgentStatus(deviceID: try b.id("deviceID"), deviceName: try b.string("deviceName"), role: role,
                                       channelPort: UInt16(try b.integer("channelPort", in: 0...65535)),
                                       beaconPort: UInt16(try b.integer("beaconPort", in: 0...65535)),
                                       clients: Int(try b.integer("clients", in: 0...Int64(Int32.max))),
                                       remotes: remotes, counters: counters,
                                       beacons: try b.optionalDictionary("beacons").map { d throws(HandoffError) in try beacons(Fields(d)) }
                                           ?? BeaconTally(), roster: roster, sources: sources))
        }
    }

    static func remote(_ b: Fields) throws(HandoffError) -> RemoteActivity {
        let type = try b.string("type")
        try Identifier.checkActivityType(type)
        return RemoteActivity(deviceID: hex(try b.id("deviceID")), deviceName: try b.string("deviceName"),
                              activityID: ActivityID(bytes: try b.id("activityID")), activityType: type,
                              title: try b.optionalString("title"), webpageURL: try b.optionalURL("url"),
                              supportsContinuationStreams: try b.optionalBool("streams") ?? false,
                              isWebOnly: try b.optionalBool("webOnly") ?? false,
                              firstSeen: try b.date("firstSeen"),
                              teamIdentifier: try b.optionalString("team") ?? "",
                              bundleIdentifier: try b.optionalString("bundle") ?? "",
                              expirationDate: try b.optionalDate("expiration"))
    }

    // MARK: Values

    /// Clamped to `dates`, so whatever is written is read back.
    static func milliseconds(_ date: Timestamp) -> Int64 {
        let ms = (date.timeIntervalSince1970 * 1000).rounded()
        guard ms.isFinite else { return 0 }
        return Int64(max(Double(dates.lowerBound), min(Double(dates.upperBound), ms)))
    }

    static func date(_ ms: Int64) -> Timestamp { Timestamp(timeIntervalSince1970: Double(ms) / 1000) }

    /// A device id is 32 hex digits in the model and 16 bytes on this socket.
    static func deviceBytes(_ hexID: String) -> [UInt8] {
        let digits = Array(hexID.utf8)
        guard digits.count == 32 else { return [] }
        var out: [UInt8] = []
        for i in stride(from: 0, to: 32, by: 2) {
            guard let hi = nibble(digits[i]), let lo = nibble(digits[i + 1]) else { return [] }
            out.append(hi << 4 | lo)
        }
        return out
    }

    private static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
        default: nil
        }
    }

    static func malformed(_ message: String) -> HandoffError { HandoffError(.malformedData, message) }

    /// GRANT's and REVOKE's `url`: a non-empty string (whether it names a
    /// document the agent delivered is the agent's answer, not the framing's).
    static func documentURL(_ b: Fields) throws(HandoffError) -> String {
        let url = try b.string("url")
        guard !url.isEmpty else { throw malformed("url is a file: URL, not empty") }
        return url
    }

    /// Typed reads of a body's keys: a missing required key or a wrong
    /// type is malformed; unknown keys are ignored.
    struct Fields {
        let body: Body
        init(_ body: Body) { self.body = body }

        func string(_ key: String) throws(HandoffError) -> String {
            guard let s = try optionalString(key) else { throw malformed("missing \(key)") }
            return s
        }

        func optionalString(_ key: String) throws(HandoffError) -> String? {
            guard let v = body[key] else { return nil }
            guard case .string(let s) = v, s.utf8.count <= maxString else {
                throw malformed("\(key) is a string of at most \(maxString) bytes")
            }
            return s
        }

        func strings(_ key: String) throws(HandoffError) -> [String] {
            var out: [String] = []
            for v in try array(key) {
                guard case .string(let s) = v, s.utf8.count <= maxString else { throw malformed("\(key) holds strings") }
                out.append(s)
            }
            return out
        }

        func array(_ key: String) throws(HandoffError) -> [PropertyListValue] {
            guard case .array(let a)? = body[key], a.count <= maxArray else {
                throw malformed("\(key) is an array of at most \(maxArray) entries")
            }
            return a
        }

        func optionalDictionary(_ key: String) throws(HandoffError) -> Body? {
            guard body[key] != nil else { return nil }
            return try dictionary(key)
        }

        func dictionary(_ key: String) throws(HandoffError) -> Body {
            guard case .dictionary(let d)? = body[key] else { throw malformed("\(key) is a dictionary") }
            return d
        }

        func integer(_ key: String, in range: ClosedRange<Int64>) throws(HandoffError) -> Int64 {
            guard let n = try optionalInteger(key) else { throw malformed("missing \(key)") }
            guard range.contains(n) else { throw malformed("\(key) out of range") }
            return n
        }

        func optionalInteger(_ key: String) throws(HandoffError) -> Int64? {
            guard let v = body[key] else { return nil }
            guard case .integer(let n) = v else { throw malformed("\(key) is an integer") }
            return n
        }

        func optionalInteger(_ key: String, in range: ClosedRange<Int64>) throws(HandoffError) -> Int64? {
            guard let n = try optionalInteger(key) else { return nil }
            guard range.contains(n) else { throw malformed("\(key) out of range") }
            return n
        }

        func date(_ key: String) throws(HandoffError) -> Timestamp {
            AgentBodyCoding.date(try integer(key, in: dates))
        }

        func optionalDate(_ key: String) throws(HandoffError) -> Timestamp? {
            guard let n = try optionalInteger(key) else { return nil }
            guard dates.contains(n) else { throw malformed("\(key) out of range") }
            return AgentBodyCoding.date(n)
        }

        func bool(_ key: String) throws(HandoffError) -> Bool {
            guard let b = try optionalBool(key) else { throw malformed("missing \(key)") }
            return b
        }

        func optionalBool(_ key: String) throws(HandoffError) -> Bool? {
            guard let v = body[key] else { return nil }
            guard case .boolean(let b) = v else { throw malformed("\(key) is a boolean") }
            return b
        }

        func data(_ key: String) throws(HandoffError) -> [UInt8] {
            guard case .data(let d)? = body[key] else { throw malformed("\(key) is data") }
            return d
        }

        func optionalData(_ key: String) throws(HandoffError) -> [UInt8]? {
            guard body[key] != nil else { return nil }
            return try data(key)
        }

        func id(_ key: String) throws(HandoffError) -> [UInt8] {
            let d = try data(key)
            guard d.count == 16 else { throw malformed("\(key) is 16 bytes") }
            return d
        }

        /// The URL is sent on as its `absoluteString`, which percent-encodes
        /// what the text left raw: that form must fit the string bound too.
        func optionalURL(_ key: String) throws(HandoffError) -> URLReference? {
            guard let s = try optionalString(key) else { return nil }
            guard let url = URLReference(string: s) else { throw malformed("\(key) is not a URL") }
            guard url.absoluteString.utf8.count <= maxString else {
                throw malformed("\(key) is over \(maxString) bytes once percent-encoded")
            }
            return url
        }
    }
}
