// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// What tailscaled's `GET /localapi/v0/status` says that matters here
/// (tailscale's `ipnstate.Status`): whether it runs, and which peers are
/// this person's devices, online now, with their Tailscale addresses
/// (docs/PROTOCOL.md "Peer sources").
///
/// Kept: peers with `Online` true, the `UserID` of `Self`, the same kind
/// of owner as `Self` (`Tags`: both untagged, or both tagged with at least
/// one tag in common), and not `ShareeNode` (a node shared in from another
/// user's tailnet). Tags matter because every tagged node of a tailnet
/// has the one UserID of "tagged-devices": a tagged node is owned by its
/// tags, not a person (tailscale's own rule, `IsTagged`), so a tagged
/// device keeps the devices that share a tag with it, and an untagged one
/// keeps its person's untagged devices only. At most
/// `maxPeers`, in the order of their keys (the node public keys), so a huge
/// tailnet gives the same choice on every poll; each with at most
/// `maxAddressesPerPeer` of its `TailscaleIPs`.
public struct TailnetStatus: Sendable, Equatable {
    public struct Peer: Sendable, Equatable {
        /// `HostName`, else `DNSName`: for doctor and logs.
        public var name: String
        public var addresses: [String]
    }

    /// `BackendState`: "Running" when the tailnet is up ("Stopped",
    /// "NeedsLogin", ... otherwise: no peers then).
    public var backendState: String
    public var peers: [Peer] = []
    /// Peers left out, by why.
    public var offline = 0
    public var otherUsers = 0
    public var shared = 0
    public var overLimit = 0
    /// Same UserID, but another owner by their tags: none in common, or
    /// one of the two tagged and the other not.
    public var otherTags = 0

    public static let maxPeers = 128
    public static let maxAddressesPerPeer = 2
    /// Tags compared per node (tailscale's nodes carry a handful).
    public static let maxTags = 64
    /// The largest status body read (a tailnet of thousands of nodes fits).
    public static let maxBodyBytes = 4 * 1024 * 1024

    /// Reads a whole LocalAPI response (status line, headers, body).
    /// - Throws: `.malformedData` for a response that is not HTTP, not 200
    ///   (with tailscaled's message), over `maxBodyBytes`, not JSON, or
    ///   JSON without a `Self` and `BackendState` of the shape ipnstate gives.
    /// tailscaled's words as doctor may print them: no control characters
    /// (an escape sequence in an error body must not reach a terminal).
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
    }

    public init(response bytes: [UInt8]) throws(HandoffError) {
        let response = try HTTPResponse(bytes: bytes)
        guard response.status == 200 else {
            let text = Self.printable(String(decoding: response.body.prefix(200), as: UTF8.self))
            throw HandoffError(.malformedData, "tailscaled answered HTTP \(response.status): \(text)")
        }
        try self.init(json: response.body)
    }

    /// Reads the JSON body alone.
    public init(json: [UInt8]) throws(HandoffError) {
        guard json.count <= Self.maxBodyBytes else {
            throw HandoffError(.malformedData, "the status is \(json.count) bytes, over the \(Self.maxBodyBytes) read")
        }
        let value: UserInfoValue
        do {
            value = try UserInfoJSON.decode(json)
        } catch {
            throw HandoffError(.malformedData, "the status is not JSON: \(error.message)")
        }
        guard case .dictionary(let status) = value else { throw Self.shape("the status is not an object") }
        guard case .string(let state)? = status["BackendState"] else { throw Self.shape("no BackendState") }
        backendState = state
        // Logged out or stopped: Self may be absent; there are no peers to keep.
        guard state == "Running" else { return }
        guard case .dictionary(let me)? = status["Self"], case .integer(let user)? = me["UserID"] else {
            throw Self.shape("no Self.UserID")
        }
        guard let myTags = Self.tags(me["Tags"]) else { throw Self.shape("Self.Tags is not a list of strings") }
        let peerMap: [String: UserInfoValue]
        switch status["Peer"] {
        case .dictionary(let map)?: peerMap = map
        case .null?, nil: peerMap = [:]
        default: throw Self.shape("Peer is not an object")
        }
        for key in peerMap.keys.sorted() {
            guard case .dictionary(let p)? = peerMap[key] else { throw Self.shape("a Peer entry is not an object") }
            guard case .boolean(true)? = p["Online"] else { offline += 1; continue }
            guard case .integer(user)? = p["UserID"] else { otherUsers += 1; continue }
            if case .boolean(true)? = p["ShareeNode"] { shared += 1; continue }
            // Tags of another shape: whose the node is cannot be told, so it is not kept.
            guard let theirTags = Self.tags(p["Tags"]), Self.sameOwner(myTags, theirTags) else { otherTags += 1; continue }
            guard peers.count < Self.maxPeers else { overLimit += 1; continue }
            var addresses: [String] = []
            if case .array(let ips)? = p["TailscaleIPs"] {
                for case .string(let ip) in ips where addresses.count < Self.maxAddressesPerPeer && ip.utf8.count <= 64 {
                    addresses.append(ip)
                }
            }
            guard !addresses.isEmpty else { continue }
            var name = ""
            if case .string(let host)? = p["HostName"], !host.isEmpty { name = host }
            else if case .string(let dns)? = p["DNSName"] { name = dns }
            peers.append(Peer(name: String(name.prefix(64)), addresses: addresses))
        }
    }

    /// `Tags` (absent or null: none), at most `maxTags` of them; nil when
    /// it is not a list of strings.
    static func tags(_ value: UserInfoValue?) -> Set<String>? {
        switch value {
        case nil, .null?:
            return []
        case .array(let list)?:
            var tags = Set<String>()
            for item in list.prefix(maxTags) {
                guard case .string(let tag) = item else { return nil }
                tags.insert(tag)
            }
            return tags
        default:
            return nil
        }
    }

    /// Untagged nodes are owned by their user (the UserIDs already match),
    /// tagged ones by their tags: one in common is one owner.
    static func sameOwner(_ mine: Set<String>, _ theirs: Set<String>) -> Bool {
        mine.isEmpty ? theirs.isEmpty : !mine.isDisjoint(with: theirs)
    }

    static func shape(_ what: String) -> HandoffError {
        HandoffError(.malformedData, "not tailscaled's status: \(what)")
    }
}
