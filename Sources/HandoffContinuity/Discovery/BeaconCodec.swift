// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// Seals beacons into UDP payloads and opens them again
/// (docs/PROTOCOL.md, "Discovery beacons").
///
/// Packet = nonce (12 random bytes) || ciphertext || tag (16 bytes):
/// AES-256-GCM under the account's beacon key, AAD = ASCII
/// `libhandoff beacon v1` (not sent). Nothing travels in the clear, so no
/// byte of a packet is stable across two beacons.
///
/// Plaintext, all integers big-endian, strings as u16 length + UTF-8:
///
///     version u8 (= 1) | kind u8 | role u8 | flags u8
///     timestamp u64 | sequence u64 | deviceID [16] | channelPort u16
///     deviceName str
///     [flags & 0x02]  activityID [16]
///     [kind = advert] activityType str | title str | teamIdentifier str
///                     | bundleIdentifier str | webpageURL str | expiration u64
///     extensions: (type u8 ≠ 0 | length u16 | value)*   (revision 2 on)
///     zero padding to a multiple of 64 bytes (0...63 bytes)
///
/// kind: 1 advert, 2 withdraw, 3 solicit (no activity, flags 0),
/// 4 presence (revision 3: no activity, flags 0 or 0x01 "leaving").
/// flags: 0x01 supportsContinuationStreams (adverts) or leaving (presence), 0x02 an activity
/// id follows (always set in adverts); 0x04 and 0x08 reserved (must be 0);
/// 0xF0 optional: a receiver ignores those it does not know. Empty
/// title/URL and expiration 0 mean absent.
///
/// How beacons grow (docs/PROTOCOL.md §10): a later revision adds kinds,
/// optional flags and extensions, which this receiver drops (an unknown
/// kind) or ignores (the others). Everything else is strict: `open`
/// refuses an unknown version, kind or role, a reserved flag, bad UTF-8, a
/// string over its limit, an extension running past the end, non-zero or
/// over-long padding. This release sends no extension and no optional flag,
/// so what it seals is exactly what revision 1 (0.1.0) accepts, but for
/// the presence kind (revision 3), which older receivers drop unread.
public enum BeaconCodec {
    public static let maxPacketSize = 1200
    /// The smallest packet `seal` produces: one 64-byte block plus overhead.
    public static let minPacketSize = paddingBlock + AESGCM.overhead
    public static let version: UInt8 = 1
    /// Additional authenticated data, not sent.
    public static let associatedData: [UInt8] = Array("libhandoff beacon v1".utf8)
    public static let paddingBlock = 64

    /// Longest strings, in UTF-8 bytes.
    public static let maxDeviceNameLength = 64
    public static let maxTitleLength = 256
    public static let maxIdentifierLength = 255
    public static let maxURLLength = 1024

    static let flagStreams: UInt8 = 0x01
    /// Kind 4's only flag: the device is going away.
    static let flagLeaving: UInt8 = 0x01
    static let flagActivityID: UInt8 = 0x02
    /// Flags a later revision may set and a receiver that does not know
    /// them ignores; 0x04 and 0x08 stay reserved (a beacon setting one is
    /// dropped), for a change every receiver must understand.
    static let optionalFlags: UInt8 = 0xF0
    static let idSize = 16

    /// Seals `beacon` under `key` (32 bytes) with a fresh random nonce.
    /// - Throws: `.invalidArgument` for a key that is not 32 bytes;
    ///   `.invalidValue` for a beacon that breaks a field rule (ids not 16
    ///   bytes, a string over its limit, an advert without its activity, type,
    ///   team or bundle) or would exceed `maxPacketSize`.
    public static func seal(_ beacon: Beacon, key: [UInt8]) throws(HandoffError) -> [UInt8] {
        try seal(beacon, key: key, nonce: nil)
    }

    /// Seals with a caller-chosen nonce: for test vectors only; reusing a
    /// nonce under one key destroys AES-GCM's security.
    public static func seal(_ beacon: Beacon, key: [UInt8], nonce: [UInt8]) throws(HandoffError) -> [UInt8] {
        guard nonce.count == AESGCM.nonceSize else {
            throw HandoffError(.invalidArgument, "a beacon nonce is \(AESGCM.nonceSize) bytes, not \(nonce.count)")
        }
        return try seal(beacon, key: key, nonce: Optional(nonce))
    }

    /// Opens a packet: the beacon, or nil for anything that does not
    /// authenticate under `key` or does not parse exactly. Never throws and
    /// never crashes on hostile input; sizes are checked before any crypto.
    public static func open(_ packet: [UInt8], key: [UInt8]) -> Beacon? {
        guard key.count == AESGCM.keySize,
              packet.count >= minPacketSize, packet.count <= maxPacketSize,
              (packet.count - AESGCM.overhead) % paddingBlock == 0,
              let plaintext = AESGCM(key: key).open(packet, aad: associatedData)
        else { return nil }
        return parse(plaintext)
    }

    // MARK: - Encoding

    private static func seal(_ beacon: Beacon, key: [UInt8], nonce: [UInt8]?) throws(HandoffError) -> [UInt8] {
        guard key.count == AESGCM.keySize else {
            throw HandoffError(.invalidArgument, "the beacon key is \(AESGCM.keySize) bytes, not \(key.count)")
        }
        let plaintext = try encode(beacon)
        guard plaintext.count + AESGCM.overhead <= maxPacketSize else {
            throw HandoffError(.invalidValue,
                "beacon would be \(plaintext.count + AESGCM.overhead) bytes, over the \(maxPacketSize)-byte limit: shorten the title, web page URL or identifiers")
        }
        return AESGCM(key: key).seal(plaintext, aad: associatedData, nonce: nonce)
    }

    /// The padded plaintext of `beacon` (checked, not yet size-limited).
    /// `extensions` and `optionalFlags`: only for tests that play a device
    /// of a later revision.
    static func encode(_ beacon: Beacon, extensions: [BeaconExtension] = [],
                       optionalFlags extra: UInt8 = 0) throws(HandoffError) -> [UInt8] {
        try check(extra & ~optionalFlags == 0, "only the optional flags 0xF0 can be added")
        try check(beacon.deviceID.count == idSize, "device id must be \(idSize) bytes, not \(beacon.deviceID.count)")
        // One rule for device names, here as in the device file (PROTOCOL §4).
        try DeviceIdentity.validateName(beacon.deviceName)
        var flags: UInt8 = 0
        var activityID: [UInt8]?
        switch beacon.kind {
        case .advert:
            guard let a = beacon.activity else {
                throw HandoffError(.invalidValue, "an advert beacon must carry its activity")
            }
            try checkLength(a.activityType, "activity type", 1...maxIdentifierLength)
            try checkLength(a.title ?? "", "title", 0...maxTitleLength)
            try checkLength(a.teamIdentifier, "team identifier", 1...maxIdentifierLength)
            try checkLength(a.bundleIdentifier, "bundle identifier", 1...maxIdentifierLength)
            try checkLength(a.webpageURL ?? "", "web page URL", 0...maxURLLength)
            activityID = a.activityID
            if a.supportsContinuationStreams { flags |= flagStreams }
        case .withdraw:
            activityID = beacon.activity?.activityID
        case .solicit:
            guard beacon.activity == nil else {
                throw HandoffError(.invalidValue, "a solicitation beacon carries no activity")
            }
        case .presence:
            guard beacon.activity == nil else {
                throw HandoffError(.invalidValue, "a presence beacon carries no activity")
            }
            if beacon.leaving { flags |= flagLeaving }
        }
        try check(!beacon.leaving || beacon.kind == .presence, "only a presence beacon says the device is leaving")
        if let activityID {
            try check(activityID.count == idSize, "activity id must be \(idSize) bytes, not \(activityID.count)")
            flags |= flagActivityID
        }

        var w = BeaconBytesWriter()
        w.u8(version)
        w.u8(beacon.kind.rawValue)
        w.u8(beacon.role.rawValue)
        w.u8(flags | extra)
        w.u64(beacon.timestamp)
        w.u64(beacon.sequence)
        w.bytes(beacon.deviceID)
        w.u16(beacon.channelPort)
        w.string(beacon.deviceName)
        if let activityID { w.bytes(activityID) }
        if beacon.kind == .advert, let a = beacon.activity {
            w.string(a.activityType)
            w.string(a.title ?? "")
            w.string(a.teamIdentifier)
            w.string(a.bundleIdentifier)
            w.string(a.webpageURL ?? "")
            w.u64(a.expiration ?? 0)
        }
        for e in extensions {
            try check(e.type != 0 && e.value.count <= Int(UInt16.max), "an extension has a type of 1...255 and at most 65535 bytes")
            w.u8(e.type)
            w.u16(UInt16(e.value.count))
            w.bytes(e.value)
        }
        let padding = (paddingBlock - w.out.count % paddingBlock) % paddingBlock
        w.out.append(contentsOf: repeatElement(0, count: padding))
        return w.out
    }

    private static func check(_ ok: Bool, _ message: @autoclosure () -> String) throws(HandoffError) {
        guard ok else { throw HandoffError(.invalidValue, message()) }
    }

    private static func checkLength(_ s: String, _ what: String, _ range: ClosedRange<Int>) throws(HandoffError) {
        let n = s.utf8.count
        guard range.contains(n) else {
            throw HandoffError(.invalidValue,
                range.lowerBound > 0 && n == 0
                    ? "beacon \(what) must not be empty"
                    : "beacon \(what) is \(n) UTF-8 bytes, over the \(range.upperBound)-byte limit")
        }
    }

    // MARK: - Decoding

    /// Parses a plaintext as `encode` writes it, ignoring extensions and
    /// optional flags of later revisions; nil otherwise.
    static func parse(_ p: [UInt8]) -> Beacon? {
        parseIgnoring(p)?.beacon
    }

    /// A parsed beacon, and whether it carried anything this release
    /// ignores (an extension or an optional flag): without either, `encode`
    /// gives back exactly the bytes parsed.
    static func parseIgnoring(_ p: [UInt8]) -> (beacon: Beacon, ignored: Bool)? {
        guard p.count % paddingBlock == 0 else { return nil }
        var r = BeaconBytesReader(p)
        guard let v = r.u8(), v == version,
              let kind = r.u8().flatMap(Beacon.Kind.init(rawValue:)),
              let role = r.u8().flatMap(DeviceRole.init(rawValue:)),
              let allFlags = r.u8(),
              case let flags = allFlags & ~optionalFlags,
              flags & ~(flagStreams | flagActivityID) == 0,
              let timestamp = r.u64(),
              let sequence = r.u64(),
              let deviceID = r.bytes(idSize),
              let channelPort = r.u16(),
              let deviceName = r.string(max: maxDeviceNameLength),
              (try? DeviceIdentity.validateName(deviceName)) != nil
        else { return nil }

        var activity: BeaconActivity?
        switch kind {
        case .advert:
            guard flags & flagActivityID != 0,
                  let id = r.bytes(idSize),
                  let type = r.string(max: maxIdentifierLength), !type.isEmpty,
                  let title = r.string(max: maxTitleLength),
                  let team = r.string(max: maxIdentifierLength), !team.isEmpty,
                  let bundle = r.string(max: maxIdentifierLength), !bundle.isEmpty,
                  let url = r.string(max: maxURLLength),
                  let expiration = r.u64()
            else { return nil }
            activity = BeaconActivity(
                activityID: id, activityType: type,
                title: title.isEmpty ? nil : title,
                teamIdentifier: team, bundleIdentifier: bundle,
                webpageURL: url.isEmpty ? nil : url,
                expiration: expiration == 0 ? nil : expiration,
                supportsContinuationStreams: flags & flagStreams != 0)
        case .withdraw:
            guard flags & flagStreams == 0 else { return nil }
            if flags & flagActivityID != 0 {
                guard let id = r.bytes(idSize) else { return nil }
                activity = .withdrawal(of: id)
            }
        case .solicit:
            guard flags == 0 else { return nil }
        case .presence:
            guard flags & ~flagLeaving == 0 else { return nil }
        }

        // Extensions of later revisions, none known to this one: skipped
        // whole (a type byte of 0 is where the padding starts).
        var extensions = 0
        while let type = r.peek(), type != 0 {
            guard r.u8() != nil, let n = r.u16(), r.skip(Int(n)) else { return nil }
            extensions += 1
        }
        // Padding: zeros only, shorter than one block.
        let rest = r.remaining
        guard rest < paddingBlock, p[(p.count - rest)...].allSatisfy({ $0 == 0 }) else { return nil }

        let beacon = Beacon(kind: kind, timestamp: timestamp, sequence: sequence, deviceID: deviceID,
                            deviceName: deviceName, role: role, channelPort: channelPort, activity: activity,
                            leaving: kind == .presence && flags & flagLeaving != 0)
        return (beacon, extensions > 0 || allFlags & optionalFlags != 0)
    }
}

private struct BeaconBytesWriter {
    var out: [UInt8] = []
    init() { out.reserveCapacity(256) }
    mutating func u8(_ v: UInt8) { out.append(v) }
    mutating func u16(_ v: UInt16) { out.append(UInt8(v >> 8)); out.append(UInt8(v & 0xFF)) }
    mutating func u64(_ v: UInt64) {
        for shift in stride(from: 56, through: 0, by: -8) { out.append(UInt8((v >> UInt64(shift)) & 0xFF)) }
    }
    mutating func bytes(_ b: [UInt8]) { out.append(contentsOf: b) }
    /// Callers have checked the length fits (every limit is below 65536).
    mutating func string(_ s: String) {
        let utf8 = Array(s.utf8)
        u16(UInt16(utf8.count))
        out.append(contentsOf: utf8)
    }
}

private struct BeaconBytesReader {
    let p: [UInt8]
    var i = 0
    init(_ p: [UInt8]) { self.p = p }
    var remaining: Int { p.count - i }

    mutating func bytes(_ n: Int) -> [UInt8]? {
        guard n >= 0, remaining >= n else { return nil }
        defer { i += n }
        return Array(p[i..<(i + n)])
    }
    mutating func u8() -> UInt8? {
        guard remaining >= 1 else { return nil }
        defer { i += 1 }
        return p[i]
    }
    func peek() -> UInt8? { remaining >= 1 ? p[i] : nil }
    mutating func skip(_ n: Int) -> Bool {
        guard remaining >= n else { return false }
        i += n
        return true
    }
    mutating func u16() -> UInt16? {
        guard remaining >= 2 else { return nil }
        defer { i += 2 }
        return UInt16(p[i]) << 8 | UInt16(p[i + 1])
    }
    mutating func u64() -> UInt64? {
        guard remaining >= 8 else { return nil }
        defer { i += 8 }
        var v: UInt64 = 0
        for k in 0..<8 { v = v << 8 | UInt64(p[i + k]) }
        return v
    }
    /// A u16-length UTF-8 string of at most `max` bytes; nil when the length
    /// runs past the end, is over the limit or the bytes are not UTF-8.
    mutating func string(max: Int) -> String? {
        guard let n = u16(), Int(n) <= max, let b = bytes(Int(n)) else { return nil }
        return String(validating: b, as: UTF8.self)
    }
}

/// A beacon extension (docs/PROTOCOL.md §10): type-length-value after the
/// beacon's fields. This release knows no type; a receiver skips each one.
struct BeaconExtension: Equatable {
    /// 1...255 (0 is where the padding starts).
    var type: UInt8
    var value: [UInt8]
}
