// SPDX-License-Identifier: MIT OR Apache-2.0
// Writes the seed corpora (Tests/fuzz/corpus/<target>/) from the library's
// own encoders, and the hand-made hostile inputs of the regression corpus
// (Tests/fuzz/regressions/<target>/): shared-reference bombs, deep nesting,
// cycles, huge claimed counts. Run by `make fuzz-seeds`; the output is
// checked in, so a change here shows up as a diff of those files.
//
// A libFuzzer binary like the targets (the instrumented modules need its
// runtime): it does its work in LLVMFuzzerInitialize and exits.
#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
@testable import HandoffModel
import HandoffRuntime
@testable import HandoffContinuity
@testable import HandoffRelay

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 { 0 }

@_cdecl("LLVMFuzzerInitialize")
public func initialize(_ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>) -> Int32 {
    guard let seeds = environment("FUZZ_SEEDS_DIR"), let regressions = environment("FUZZ_REGRESSIONS_DIR") else {
        fatalError("set FUZZ_SEEDS_DIR and FUZZ_REGRESSIONS_DIR")
    }
    do {
        try writeSeeds(Writer(root: seeds))
        try writeRegressions(Writer(root: regressions))
    } catch {
        fatalError("\(error)")
    }
    exit(0)
}

func environment(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }

struct Writer {
    let root: String
    func callAsFunction(_ target: String, _ name: String, _ bytes: [UInt8]) {
        let dir = root + "/" + target
        mkdir(root, 0o755)
        mkdir(dir, 0o755)
        let path = dir + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0 && write(fd, bytes, bytes.count) == bytes.count && close(fd) == 0, "cannot write \(path)")
    }
    func callAsFunction(_ target: String, _ name: String, _ text: String) {
        self(target, name, Array(text.utf8))
    }
}

// MARK: - Seeds

let richUserInfo: UserInfo = [
    "null": .null, "yes": .boolean(true), "int": .integer(-42), "big": .integer(Int64.max),
    "real": .real(3.25), "text": .string("Grüße 👋"), "data": .data([0, 1, 2, 255]),
    "date": .date(Timestamp(timeIntervalSince1970: 1_700_000_000.5)),
    "url": .url(URLReference(string: "https://example.com/a?b=c")!),
    "list": .array([.integer(1), .string("two"), .array([.real(3)])]),
    "dict": .dictionary(["inner": .dictionary(["deep": .boolean(true)])]),
    "set": .set([.string("a"), .string("b"), .integer(3)]),
]

func writeSeeds(_ w: Writer) throws {
    writePairingSeeds(w)
    try writeDocumentSeeds(w)
    writeRelaySeeds(w)
    // Binary property lists: scalars of every width, containers, userInfos.
    let plists: [(String, PropertyListValue)] = [
        ("null", .null), ("true", .boolean(true)), ("int8", .integer(200)), ("int16", .integer(40_000)),
        ("int32", .integer(3_000_000_000)), ("int64", .integer(Int64.min)), ("real", .real(-0.5)),
        ("date", .date(700_000_000)), ("data", .data(Array(0..<40))), ("ascii", .string("hello world, a longer ascii string")),
        ("utf16", .string("Grüße 👋 ünïcödé")), ("empty-array", .array([])), ("empty-dict", .dictionary([:])),
        ("array", .array([.integer(1), .string("x"), .boolean(false), .real(1e300)])),
        ("nested", .dictionary(["a": .array([.dictionary(["b": .array([.null])])]), "c": .data([1])])),
        ("many", .array((0..<20).map { .integer(Int64($0) * 1000) })),
    ]
    for (name, value) in plists { w("bplist", name, BinaryPropertyList.encode(value)) }
    w("bplist", "userinfo", UserInfoCoding.encode(richUserInfo))

    // userInfo dictionaries.
    w("userinfo", "every-type", UserInfoCoding.encode(richUserInfo))
    w("userinfo", "empty", UserInfoCoding.encode([:]))
    w("userinfo", "null", UserInfoCoding.encode(["n": .null]))
    w("userinfo", "url", UserInfoCoding.encode(["u": .url(URLReference(string: "file:///tmp/x.txt")!)]))
    w("userinfo", "set", UserInfoCoding.encode(["s": .set([.integer(1), .data([9]), .string("z")])]))
    w("userinfo", "deep", UserInfoCoding.encode(["d": nested(15)]))

    // userInfo as JSON text (the Python binding's fast path).
    let jsonValues: [(String, UserInfoValue)] = [
        ("kinds", .dictionary(["n": .null, "t": .boolean(true), "i": .integer(-7), "r": .real(2.5), "s": .string("a\"\\\n é 👋"),
                               "a": .array([.integer(1), .array([]), .dictionary([:])])])),
        ("empty", .dictionary([:])),
        ("extremes", .array([.integer(.min), .integer(.max), .real(5e-324), .real(1.7976931348623157e308), .real(-0.0)])),
        ("deep", nested(15)),
    ]
    for (name, value) in jsonValues { w("userinfo-json", name, try UserInfoJSON.encode(value)) }
    w("userinfo-json", "escapes", Array(#"{"k\u00e9":"\ud83d\udc4b\t\/","x":[1e2,-0.5E-3]}"#.utf8))

    // Activity payloads.
    let plain = activity("com.example.shapes.edit", 1)
    w("activity", "plain", try ActivityCoding.encode(plain))
    let full = activity("com.example.docs.edit-document", 2)
    full.title = "Quarterly report"
    full.keywords = ["report", "q3"]
    full.targetContentIdentifier = "doc-42"
    full.persistentIdentifier = "persist-1"
    full.isEligibleForSearch = true
    full.supportsContinuationStreams = true
    try full.setUserInfo(richUserInfo)
    full.requiredUserInfoKeys = ["text", "int"]
    try full.setWebpageURL(URLReference(string: "https://example.com/docs/42")!)
    try full.setReferrerURL(URLReference(string: "https://example.com/")!)
    try full.setExpirationDate(Timestamp(timeIntervalSince1970: 1_900_000_000))
    w("activity", "full", try ActivityCoding.encode(full))
    let small = activity("org.example.map.view", 3)
    try small.setUserInfo(["lat": .real(48.85), "lon": .real(2.35), "zoom": .integer(12)])
    w("activity", "map", try ActivityCoding.encode(small))

    // Info.plists, XML and binary.
    w("manifest", "xml", """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleIdentifier</key>
        \t<string>com.example.shapes</string>
        \t<key>HandoffTeamIdentifier</key>
        \t<string>A1B2C3D4E5</string>
        \t<key>NSUserActivityTypes</key>
        \t<array>
        \t\t<string>com.example.shapes.create-shape</string>
        \t\t<string>com.example.shapes.edit-shape</string>
        \t</array>
        \t<key>LSRequiresIPhoneOS</key>
        \t<true/>
        \t<key>Version</key>
        \t<integer>3</integer>
        \t<key>Ratio</key>
        \t<real>1.5</real>
        \t<key>Icon</key>
        \t<data>AAECAw==</data>
        \t<key>Built</key>
        \t<date>2024-01-02T03:04:05Z</date>
        </dict>
        </plist>

        """)
    w("manifest", "xml-prefix", """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>org.example.app</string>\
        <key>AppIdentifierPrefix</key><string>TEAM123456.</string><key>Name</key><string>a &amp; b &lt;c&gt;</string></dict></plist>

        """)
    let info: [String: PropertyListValue] = [
        "CFBundleIdentifier": .string("com.example.shapes"), "HandoffTeamIdentifier": .string("A1B2C3D4E5"),
        "NSUserActivityTypes": .array([.string("com.example.shapes.create-shape"), .string("com.example.shapes.edit-shape")]),
        "UIRequiredDeviceCapabilities": .array([.string("armv7")]), "Count": .integer(5), "Flag": .boolean(true),
    ]
    w("manifest", "binary", BinaryPropertyList.encode(.dictionary(info)))
    w("manifest", "binary-prefix", BinaryPropertyList.encode(.dictionary([
        "CFBundleIdentifier": .string("org.example.app"), "AppIdentifierPrefix": .string("TEAM123456."),
        "When": .date(1000), "Blob": .data([1, 2, 3]), "Ratio": .real(0.25),
    ])))

    // What Apple's tools accept and the manifest loads with warnings: a key
    // repeated in one dictionary (the last value wins), NSUserActivityTypes
    // written as a dictionary.
    w("manifest", "xml-repeated-keys", """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>com.example.first</string>\
        <key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string><key>NSAppTransportSecurity</key>\
        <dict><key>NSAllowsArbitraryLoads</key><true/><key>NSAllowsArbitraryLoads</key><false/></dict>\
        <key>CFBundleIdentifier</key><string>com.example.last</string></dict></plist>

        """)
    w("manifest", "xml-types-dictionary", """
        <?xml version="1.0" encoding="UTF-8"?>
        <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>org.example.focus</string>\
        <key>HandoffTeamIdentifier</key><string>A1B2C3D4E5</string><key>NSUserActivityTypes</key>\
        <dict><key>org.example.focus.search</key><string>Search</string></dict></dict></plist>

        """)
    // CFBundleIdentifier twice in one dictionary (assembled by hand).
    w("manifest", "binary-repeated-key", hex(
        "62706c6973743030d401020106030405075f1012434642756e646c654964656e7469666965725f101548616e646f66665465616d"
        + "4964656e7469666965725f1011636f6d2e6578616d706c652e66697273745a413142324333443445355f1010636f6d2e657861"
        + "6d706c652e6c6173745f10134e535573657241637469766974795479706573a1085f1015636f6d2e6578616d706c652e6c6173"
        + "742e656469740811263e525d70868800000000000001010000000000000009000000000000000000000000000000a0"))

    // Beacons: plaintexts, and (for open) sealed packets.
    let device: [UInt8] = Array(100..<116), activityID: [UInt8] = Array(200..<216)
    let beacons: [(String, Beacon)] = [
        ("advert", Beacon(kind: .advert, timestamp: 1_700_000_000_000, sequence: 7, deviceID: device,
                          deviceName: "Ada's laptop", role: .full, channelPort: 49_152,
                          activity: BeaconActivity(activityID: activityID, activityType: "com.example.docs.edit",
                                                   title: "Report", teamIdentifier: "A1B2C3D4E5",
                                                   bundleIdentifier: "com.example.docs", webpageURL: "https://example.com/d",
                                                   expiration: 1_800_000_000_000, supportsContinuationStreams: true))),
        ("advert-minimal", Beacon(kind: .advert, timestamp: 1, sequence: 1, deviceID: device, deviceName: "x",
                                  role: .sendOnly, channelPort: 1,
                                  activity: BeaconActivity(activityID: activityID, activityType: "t",
                                                           teamIdentifier: "T", bundleIdentifier: "b"))),
        ("withdraw-one", Beacon(kind: .withdraw, timestamp: 2, sequence: 3, deviceID: device, deviceName: "phone",
                                role: .full, channelPort: 7000, activity: .withdrawal(of: activityID))),
        ("withdraw-all", Beacon(kind: .withdraw, timestamp: 2, sequence: 4, deviceID: device, deviceName: "Grüße",
                                role: .full, channelPort: 7000, activity: nil)),
        // Revision 3: a device that offers nothing, and one leaving.
        ("presence", Beacon(kind: .presence, timestamp: 3, sequence: 5, deviceID: device, deviceName: "Ada's laptop",
                            role: .full, channelPort: 49_152, activity: nil)),
        ("presence-leaving", Beacon(kind: .presence, timestamp: 3, sequence: 6, deviceID: device, deviceName: "phone",
                                    role: .sendOnly, channelPort: 7000, activity: nil, leaving: true)),
    ]
    let key: [UInt8] = Array(0..<32), nonce = [UInt8](repeating: 7, count: AESGCM.nonceSize)
    for (name, beacon) in beacons {
        w("beacon-plaintext", name, try BeaconCodec.encode(beacon))
        w("beacon-packet", name, try BeaconCodec.encode(beacon))
        w("beacon-packet", name + "-sealed", try BeaconCodec.seal(beacon, key: key, nonce: nonce))
    }

    // Exchange messages, alone and as a framed stream.
    let id = ActivityID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    let messages: [(String, ExchangeMessage)] = [
        ("fetch", .fetch(id)), ("payload", .payload(try ActivityCoding.encode(small))),
        ("error", .error(code: 4609, message: "the activity is no longer offered")), ("confirm", .confirm(id)),
        ("stream-open", .streamOpen(id)), ("stream-accepted", .streamAccepted),
    ]
    for (name, message) in messages {
        w("exchange-message", name, [message.frame.type] + message.frame.payload)
    }
    let framed = messages.flatMap { $0.1.frame.encoded() }
    w("channel-frames", "exchange", [0, 0] + framed)
    w("channel-frames", "exchange-small-reads", [0, 1] + framed)
    w("channel-frames", "small-cap", [4, 3] + framed)
    w("channel-frames", "fetch", [0, 9] + ExchangeMessage.fetch(id).frame.encoded())

    // Stream mode: DATA frames, then END.
    func data(_ bytes: [UInt8]) -> [UInt8] { Frame(type: StreamFrame.data, payload: bytes).encoded() }
    let end = Frame(type: StreamFrame.end, payload: []).encoded()
    w("stream-frames", "data-end", [0, 0] + data(Array("hello".utf8)) + data(Array(0..<200)) + end)
    w("stream-frames", "small-reads", [0, 1] + data(Array(repeating: 42, count: 1000)) + end)
    w("stream-frames", "end", [0, 5] + end)
    w("stream-frames", "small-cap", [1, 2] + data(Array(0..<63)) + data(Array(0..<64)) + end)

    // Pairing codes and the account and device files.
    let keys = [try AccountKey(bytes: (0..<32).map { UInt8($0 * 37 & 0xff) }), try AccountKey(bytes: Array(0..<32)), try AccountKey(bytes: Array(repeating: 0xff, count: 32))]
    for (i, k) in keys.enumerated() {
        let code = k.pairingCode
        w("pairing-code", "code-\(i)", code)
        w("account-file", "account-\(i)", code + "\n")
    }
    let code = keys[1].pairingCode
    w("pairing-code", "lowercase-spaced", String(code.lowercased().map { $0 == "-" ? " " : $0 }))
    w("pairing-code", "no-dashes", String(code.filter { $0 != "-" }))
    w("account-file", "no-newline", code)
    let devices = [
        try DeviceIdentity(id: "0123456789abcdef0123456789abcdef", name: "Ada's laptop", role: .full),
        try DeviceIdentity(id: "ffffffffffffffffffffffffffffffff", name: "Grüße 👋", role: .sendOnly),
    ]
    for (i, d) in devices.enumerated() { w("device-file", "device-\(i)", AccountStore.deviceFile(d)) }
    w("device-file", "reordered-extra", "role=full\nfuture=1\nname=x\nid=0123456789abcdef0123456789abcdef\n")

    try writeAgentSeeds(w)
    writeDesktopEntrySeeds(w)
    writeSettingsSeeds(w)
    writeDocumentPlaceSeeds(w)
    writeRelayFileSeeds(w)
    writeTailnetSeeds(w)
    writeNativeMessagingSeeds(w)
}

/// An activity with a fixed id, so the seeds are the same on every run.
func activity(_ type: String, _ n: UInt8) -> UserActivity {
    let id = ActivityID(bytes: [n, 1, 2, 3, 4, 5, 0x46, 7, 0x88, 9, 10, 11, 12, 13, 14, 15])
    return UserActivity(activityType: type, activityID: id, state: ActivityState())
}

func nested(_ depth: Int) -> UserInfoValue {
    var v = UserInfoValue.integer(0)
    for _ in 0..<depth { v = .array([v]) }
    return v
}

// MARK: - Regressions: hostile inputs written by hand

/// A bplist written object by object, so references can be shared, cyclic
/// or out of range as the test needs. References and offsets are 4 bytes.
struct RawPlist {
    var objects: [[UInt8]] = []
    mutating func add(_ object: [UInt8]) -> UInt32 { objects.append(object); return UInt32(objects.count - 1) }

    static func be(_ v: UInt64, _ size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: v >> (8 * UInt64($0))) } }
    /// A marker with its count: inline below 15, else 0xF then an int.
    static func marker(_ high: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [high << 4 | UInt8(count)] : [high << 4 | 0xF, 0x13] + be(UInt64(count), 8)
    }
    static func ascii(_ s: String) -> [UInt8] { marker(0x5, s.utf8.count) + Array(s.utf8) }
    static func utf16(_ s: String) -> [UInt8] { marker(0x6, s.utf16.count) + s.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
    static func array(_ refs: [UInt32]) -> [UInt8] { marker(0xA, refs.count) + refs.flatMap { be(UInt64($0), 4) } }
    static func dict(_ keys: [UInt32], _ values: [UInt32]) -> [UInt8] {
        marker(0xD, keys.count) + (keys + values).flatMap { be(UInt64($0), 4) }
    }
    static func int(_ v: Int64) -> [UInt8] { [0x13] + be(UInt64(bitPattern: v), 8) }

    func bytes(top: UInt32, claimedCount: UInt64? = nil) -> [UInt8] {
        var out = Array("bplist00".utf8), offsets: [UInt64] = []
        for o in objects { offsets.append(UInt64(out.count)); out += o }
        let table = UInt64(out.count)
        for o in offsets { out += Self.be(o, 4) }
        out += [0, 0, 0, 0, 0, 0, 4, 4] + Self.be(claimedCount ?? UInt64(objects.count), 8)
            + Self.be(UInt64(top), 8) + Self.be(table, 8)
        return out
    }
}

/// The userInfo dictionary {"k": value} where `build` adds the value.
func userInfo(_ build: (inout RawPlist) -> UInt32) -> [UInt8] {
    var p = RawPlist()
    let key = p.add(RawPlist.ascii("k"))
    let value = build(&p)
    let top = p.add(RawPlist.dict([key], [value]))
    return p.bytes(top: top)
}

/// An activity payload whose userInfo is {"k": value}.
func payload(_ build: (inout RawPlist) -> UInt32) -> [UInt8] {
    var p = RawPlist()
    let names = ["version", "activityID", "activityType", "userInfo"].map { p.add(RawPlist.ascii($0)) }
    let version = p.add(RawPlist.int(1))
    let id = p.add(RawPlist.ascii("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    let type = p.add(RawPlist.ascii("com.example.bomb"))
    let key = p.add(RawPlist.ascii("k"))
    let value = build(&p)
    let info = p.add(RawPlist.dict([key], [value]))
    let top = p.add(RawPlist.dict(names, [version, id, type, info]))
    return p.bytes(top: top)
}

/// 1000 references to one array of 1000 references to one 4 KB string:
/// 6 KB that expands to 4 GB when re-encoded (issue 13).
func squareBomb(_ p: inout RawPlist) -> UInt32 {
    let leaf = p.add(RawPlist.ascii(String(repeating: "A", count: 4096)))
    let inner = p.add(RawPlist.array(Array(repeating: leaf, count: 1000)))
    return p.add(RawPlist.array(Array(repeating: inner, count: 1000)))
}

/// 40 levels, each an array holding the next level twice: 2^40 leaves.
func doublingBomb(_ p: inout RawPlist) -> UInt32 {
    var level = p.add(RawPlist.ascii(String(repeating: "B", count: 64)))
    for _ in 0..<40 { level = p.add(RawPlist.array([level, level])) }
    return level
}

/// Dictionaries shared the same way: 16 levels of 8 keys all naming one value.
func dictionaryBomb(_ p: inout RawPlist) -> UInt32 {
    let keys = (0..<8).map { p.add(RawPlist.ascii("key\($0)")) }
    var level = p.add(RawPlist.ascii(String(repeating: "C", count: 256)))
    for _ in 0..<16 { level = p.add(RawPlist.dict(keys, Array(repeating: level, count: 8))) }
    return level
}

/// Arrays nested `depth` deep, each a distinct object.
func deep(_ depth: Int) -> (inout RawPlist) -> UInt32 {
    { p in
        var level = p.add(RawPlist.int(0))
        for _ in 0..<depth { level = p.add(RawPlist.array([level])) }
        return level
    }
}

/// An array that contains itself (through one level).
func cycle(_ p: inout RawPlist) -> UInt32 {
    let a = UInt32(p.objects.count), b = a + 1
    _ = p.add(RawPlist.array([b]))
    _ = p.add(RawPlist.array([a]))
    return a
}

/// 250 null tokens, each its own object or all one shared object: 250
/// bytes read, written as 250 {"$class": "NSNull"} dictionaries (3750).
func nullTokens(shared: Bool) -> (inout RawPlist) -> UInt32 {
    { p in
        let one = p.add([0x00])
        let refs = shared ? Array(repeating: one, count: 250) : [one] + (1..<250).map { _ in p.add([0x00]) }
        return p.add(RawPlist.array(refs))
    }
}

/// A tagged URL whose string holds `spaces` spaces, each written back as "%20".
func spacedURL(_ spaces: Int) -> (inout RawPlist) -> UInt32 {
    { p in
        let keys = [p.add(RawPlist.ascii("$class")), p.add(RawPlist.ascii("NS.relative"))]
        let values = [p.add(RawPlist.ascii("NSURL")), p.add(RawPlist.ascii("https://a.example/" + String(repeating: " ", count: spaces)))]
        return p.add(RawPlist.dict(keys, values))
    }
}

/// A tagged URL sent as UTF-16: written back as shorter ASCII.
func utf16URL(_ p: inout RawPlist) -> UInt32 {
    let keys = [p.add(RawPlist.ascii("$class")), p.add(RawPlist.ascii("NS.relative"))]
    let url = "https://a.example/" + String(repeating: "é", count: 10) + String(repeating: "x", count: 300)
    let values = [p.add(RawPlist.ascii("NSURL")), p.add(RawPlist.utf16(url))]
    return p.add(RawPlist.dict(keys, values))
}

/// A tagged set whose members array names one member 50 times.
func duplicateMembers(_ p: inout RawPlist) -> UInt32 {
    let keys = [p.add(RawPlist.ascii("$class")), p.add(RawPlist.ascii("NS.objects"))]
    let member = p.add(RawPlist.ascii(String(repeating: "m", count: 40)))
    let values = [p.add(RawPlist.ascii("NSSet")), p.add(RawPlist.array(Array(repeating: member, count: 50)))]
    return p.add(RawPlist.dict(keys, values))
}

/// An activity payload with extra top-level fields, its userInfo {"k": 1}.
func payload(extra: [(String, (inout RawPlist) -> UInt32)]) -> [UInt8] {
    var p = RawPlist()
    let fields = ["version", "activityID", "activityType", "userInfo"] + extra.map(\.0)
    let names = fields.map { p.add(RawPlist.ascii($0)) }
    let version = p.add(RawPlist.int(1))
    let id = p.add(RawPlist.ascii("E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
    let type = p.add(RawPlist.ascii("com.example.grow"))
    let key = p.add(RawPlist.ascii("k")), one = p.add(RawPlist.int(1))
    let info = p.add(RawPlist.dict([key], [one]))
    let values = extra.map { $0.1(&p) }
    let top = p.add(RawPlist.dict(names, [version, id, type, info] + values))
    return p.bytes(top: top)
}

func writeRegressions(_ w: Writer) throws {
    writeNativeMessagingRegressions(w)
    try writeDocumentRegressions(w)
    writePairingRegressions(w)
    writeRelayRegressions(w)
    writeDesktopEntryRegressions(w)
    writeRelayFileRegressions(w)
    writeDocumentPlaceRegressions(w)
    // What a value is written as may be larger than what was read (the
    // userinfo target's first finding: null tokens counted as 1 byte):
    // measured as written, these are over the budget and refused (4611).
    // Others are written smaller and must round-trip.
    let growing: [(String, (inout RawPlist) -> UInt32)] = [
        ("grows-over-null-tokens", nullTokens(shared: false)), ("grows-over-null-token-shared", nullTokens(shared: true)),
        ("grows-over-url-spaces", spacedURL(1100)), ("shrinks-utf16-url", utf16URL), ("shrinks-set-duplicates", duplicateMembers),
    ]
    for (name, build) in growing {
        w("userinfo", name, userInfo(build))
        w("activity", name, payload(build))
    }
    // 22,000 spaces: 22 KB read, 66 KB written, over the 64 KiB payload limit.
    w("activity", "grows-over-webpage-url", payload(extra: [("webpageURL", { p in
        p.add(RawPlist.ascii("https://a.example/" + String(repeating: " ", count: 22_000)))
    })]))
    // A sender refuses to send this (4608); a receiver refuses to take it.
    w("activity", "required-key-missing", payload(extra: [("requiredUserInfoKeys", { p in
        let keys = [p.add(RawPlist.ascii("k")), p.add(RawPlist.ascii("absent"))]
        return p.add(RawPlist.array(keys))
    })]))

    let bombs: [(String, (inout RawPlist) -> UInt32)] = [
        ("bomb-1000x1000x4k", squareBomb), ("bomb-doubling-2e40", doublingBomb), ("bomb-dictionaries-8e16", dictionaryBomb),
        ("deep-10000", deep(10_000)), ("deep-65", deep(65)), ("cycle", cycle),
    ]
    for (name, build) in bombs {
        w("userinfo", name, userInfo(build))
        w("activity", name, payload(build))
        var p = RawPlist()
        let top = build(&p)
        w("bplist", name, p.bytes(top: top))
    }

    // Huge claimed counts and lengths, each in a small file.
    func single(_ object: [UInt8], claimedCount: UInt64? = nil) -> [UInt8] {
        var p = RawPlist()
        let top = p.add(object)
        return p.bytes(top: top, claimedCount: claimedCount)
    }
    let huge: [(String, [UInt8])] = [
        ("count-array-2e62", [0xAF, 0x13] + RawPlist.be(1 << 62, 8)),
        ("count-array-max", [0xAF, 0x13] + RawPlist.be(UInt64.max, 8)),
        ("count-dict-2e61", [0xDF, 0x13] + RawPlist.be(1 << 61, 8)),
        ("count-string-2e60", [0x5F, 0x13] + RawPlist.be(1 << 60, 8)),
        ("count-utf16-2e62", [0x6F, 0x13] + RawPlist.be(1 << 62, 8)),
        ("count-data-negative", [0x4F, 0x13] + RawPlist.be(UInt64(bitPattern: -5), 8)),
        ("int-16-bytes", [0x14, 0x7F] + Array(repeating: 0xFF, count: 15)),
        ("string-runs-past-end", [0x5E] + Array("abc".utf8)),
    ]
    for (name, object) in huge {
        let bytes = single(object)
        w("bplist", name, bytes)
        w("userinfo", name, bytes)
        w("activity", name, bytes)
        w("manifest", name, bytes)
    }
    w("bplist", "trailer-count-2e63", single(RawPlist.int(1), claimedCount: 1 << 63))
    w("bplist", "trailer-count-max", single(RawPlist.int(1), claimedCount: UInt64.max))

    // A binary Info.plist whose bundle identifier runs past the end of the
    // file (issue 13: it trapped inside FoundationEssentials' decoder).
    var info = RawPlist()
    let k1 = info.add(RawPlist.ascii("CFBundleIdentifier")), k2 = info.add(RawPlist.ascii("HandoffTeamIdentifier"))
    let v2 = info.add(RawPlist.ascii("A1B2C3D4E5"))
    let v1 = info.add(RawPlist.marker(0x5, 200) + Array("com.example.x".utf8))
    let infoTop = info.add(RawPlist.dict([k1, k2], [v1, v2]))
    w("manifest", "string-past-end", info.bytes(top: infoTop))
    var info16 = RawPlist()
    let j1 = info16.add(RawPlist.ascii("CFBundleIdentifier"))
    let u1 = info16.add(RawPlist.marker(0x6, 1000) + [0, 0x41])
    let info16Top = info16.add(RawPlist.dict([j1], [u1]))
    w("manifest", "utf16-past-end", info16.bytes(top: info16Top))
    for (name, build) in bombs {
        var p = RawPlist()
        let names = ["CFBundleIdentifier", "HandoffTeamIdentifier", "NSUserActivityTypes"].map { p.add(RawPlist.ascii($0)) }
        let bundle = p.add(RawPlist.ascii("com.example.x")), team = p.add(RawPlist.ascii("A1B2C3D4E5"))
        let types = build(&p)
        let top = p.add(RawPlist.dict(names, [bundle, team, types]))
        w("manifest", name, p.bytes(top: top))
    }
    let deepXML = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
    w("manifest", "xml-deep-10000", "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>CFBundleIdentifier</key>"
        + "<string>x.y</string><key>NSUserActivityTypes</key>" + deepXML + "</dict></plist>")
    let entities = "<!DOCTYPE plist [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">"
        + "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\"><!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">"
        + "<!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\"><!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">"
        + "<!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\"><!ENTITY h \"&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;\">]>"
    w("manifest", "xml-billion-laughs", "<?xml version=\"1.0\"?>" + entities + "<plist version=\"1.0\"><dict>"
        + "<key>CFBundleIdentifier</key><string>&h;</string><key>HandoffTeamIdentifier</key><string>T</string></dict></plist>")
    w("manifest", "xml-truncated", "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>CFBundleIdentifier</key><stri")
    w("manifest", "empty", [UInt8]())
    // Issue 13's 215-byte Info.plist: a UTF-16 activity type of 52 code
    // units running into the offset table; FoundationEssentials trapped.
    w("manifest", "string-utf16-into-offset-table-215", hex(
        "62706c6973743030d30102030405065f1012434642756e646c654964656e7469666965725f101548616e646f66665465616d4964"
        + "656e7469666965725f10134e5355736572416374697669747954797065735f1010636f6d2e6578616d706c652e747261705a41"
        + "314232433344344535a1076f10340063006f006d002e006500780061006d0070006c0065002e00f600660066006e0065006e00"
        + "790079007900790079007900790079007900790079080f243c5265707200000000000001010000000000000008000000000000"
        + "000000000000000000af"))

    try writeProtocolRegressions(w)
    try writeAgentRegressions(w)
}

/// Hostile frames, beacons, codes and files for the continuity decoders.
func writeProtocolRegressions(_ w: Writer) throws {
    func u32(_ n: UInt32) -> [UInt8] { RawPlist.be(UInt64(n), 4).map { $0 } }
    // Channel frames: [cap byte, read-size byte] + stream.
    w("channel-frames", "length-zero", [0, 0] + u32(0) + [1])
    w("channel-frames", "length-max", [0, 0] + u32(UInt32.max) + [2])
    w("channel-frames", "length-over-cap", [0, 0] + u32(65_537) + [2] + Array(repeating: 0, count: 64))
    w("channel-frames", "length-over-small-cap", [1, 0] + u32(17) + [1] + Array(repeating: 0, count: 16))
    w("channel-frames", "half-frame", [0, 0] + u32(100) + [2, 1, 2, 3])
    w("channel-frames", "many-tiny", [0, 0] + Array([UInt8]([0, 0, 0, 1, 6]).repeated(400)))

    // Exchange messages: type byte + payload.
    w("exchange-message", "fetch-15", [1] + Array(repeating: 0xAB, count: 15))
    w("exchange-message", "fetch-17", [1] + Array(repeating: 0xAB, count: 17))
    w("exchange-message", "error-short", [3, 0, 0])
    w("exchange-message", "error-bad-utf8", [3, 0, 0, 0x12, 0x01, 0xC3, 0x28])
    w("exchange-message", "error-1025", [3, 0, 0, 0x12, 0x01] + Array(repeating: 0x41, count: 1025))
    w("exchange-message", "accepted-with-payload", [6, 0])
    w("exchange-message", "type-0", [0])
    w("exchange-message", "type-255", [255, 1, 2])

    // Stream frames: [cap byte, read-size byte] + stream.
    w("stream-frames", "data-empty", [0, 0] + u32(1) + [7])
    w("stream-frames", "data-max", [0, 0] + u32(UInt32.max) + [7, 1, 2, 3])
    w("stream-frames", "end-with-payload", [0, 0] + u32(2) + [8, 0])
    w("stream-frames", "after-end", [0, 0] + u32(1) + [8] + u32(3) + [7, 1, 2])
    w("stream-frames", "exchange-type", [0, 0] + u32(17) + [1] + Array(repeating: 0, count: 16))

    // Beacon plaintexts, each a multiple of 64 bytes as parse requires.
    func padded(_ bytes: [UInt8], _ fill: UInt8 = 0) -> [UInt8] {
        bytes + Array(repeating: fill, count: (64 - bytes.count % 64) % 64)
    }
    let head: [UInt8] = [1, 2, 1, 0] + Array(repeating: 0, count: 16) + Array(100..<116) + [0x1B, 0x58]
    w("beacon-plaintext", "name-past-end", padded(head + [0xFF, 0xFF]))
    w("beacon-plaintext", "name-over-limit", padded(head + [0, 65] + Array(repeating: 0x41, count: 65)))
    w("beacon-plaintext", "name-bad-utf8", padded(head + [0, 2, 0xC3, 0x28]))
    w("beacon-plaintext", "padding-nonzero", padded(head + [0, 1, 0x41], 1))
    w("beacon-plaintext", "padding-whole-block", head + [0, 1, 0x41] + Array(repeating: 0, count: 64 + 64 - (head.count + 3) % 64))
    w("beacon-plaintext", "unknown-flag", padded([1, 2, 1, 0x80] + Array(head[4...]) + [0, 0]))
    w("beacon-plaintext", "version-2", padded([2] + Array(head[1...]) + [0, 0]))
    // A presence may carry no activity id, and no flag but 0x01 (leaving).
    w("beacon-plaintext", "presence-activity-flag", padded([1, 4, 1, 0x02] + Array(head[4...]) + [0, 0] + Array(200..<216)))
    w("beacon-plaintext", "presence-streams-and-reserved", padded([1, 4, 1, 0x05] + Array(head[4...]) + [0, 0]))
    w("beacon-plaintext", "advert-truncated", padded([1, 1, 1, 2] + Array(head[4...]) + [0, 0] + Array(200..<216) + [0xFF]))
    w("beacon-plaintext", "empty", [UInt8]())
    w("beacon-packet", "too-short", Array(repeating: 7, count: 12))
    w("beacon-packet", "too-long", Array(repeating: 0, count: 1300))
    w("beacon-packet", "not-a-block", Array(repeating: 0, count: 100))

    // Pairing codes and files.
    w("pairing-code", "empty", "")
    w("pairing-code", "57-chars", String(repeating: "A", count: 57))
    w("pairing-code", "59-chars", String(repeating: "A", count: 59))
    w("pairing-code", "u", String(repeating: "U", count: 58))
    w("pairing-code", "padding-bits", String(repeating: "Z", count: 58))
    w("pairing-code", "fullwidth", String(repeating: "\u{FF21}", count: 58))
    w("pairing-code", "combining", String(repeating: "A\u{301}", count: 58))
    w("pairing-code", "nul", [UInt8](repeating: 0, count: 58))
    w("account-file", "two-codes", try AccountKey(bytes: Array(0..<32)).pairingCode + "\n" + (try AccountKey(bytes: Array(0..<32)).pairingCode) + "\n")
    w("account-file", "crlf", try AccountKey(bytes: Array(0..<32)).pairingCode + "\r\n")
    w("account-file", "not-utf8", [0xFF, 0xFE, 0x41])
    w("account-file", "over-4k", String(repeating: "A", count: 5000))
    w("device-file", "twice", "id=0123456789abcdef0123456789abcdef\nid=0123456789abcdef0123456789abcdef\nname=x\nrole=full\n")
    w("device-file", "no-equals", "id\nname=x\nrole=full\n")
    w("device-file", "role-unknown", "id=0123456789abcdef0123456789abcdef\nname=x\nrole=admin\n")
    w("device-file", "id-upper", "id=0123456789ABCDEF0123456789ABCDEF\nname=x\nrole=full\n")
    w("device-file", "name-control", "id=0123456789abcdef0123456789abcdef\nname=a\u{7}b\nrole=full\n")
    w("device-file", "name-nul", "id=0123456789abcdef0123456789abcdef\nname=a\u{0}b\nrole=full\n")
    w("device-file", "crlf", "id=0123456789abcdef0123456789abcdef\r\nname=x\r\nrole=full\r\n")
    w("device-file", "over-4k", "id=0123456789abcdef0123456789abcdef\nname=" + String(repeating: "x", count: 5000) + "\nrole=full\n")
}

func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.utf8)
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0...$0 + 1], as: UTF8.self), radix: 16)! }
}

extension Array {
    func repeated(_ times: Int) -> [Element] { (0..<times).flatMap { _ in self } }
}

// MARK: - The agent's local protocol (docs/agent.md §3)

/// One datagram as the agent-message target reads it: byte 0 is the sender
/// (0 the app, 1 the agent), then the datagram.
func agentInput(_ sender: AgentMessage.Sender, _ datagram: [UInt8]) -> [UInt8] {
    [sender == .app ? 0 : 1] + datagram
}

/// A datagram with this header and body, written without the encoder's checks.
func agentDatagram(_ kind: UInt8, id: UInt32, _ body: [UInt8] = [], version: UInt8 = 1, flags: [UInt8] = [0, 0]) -> [UInt8] {
    [version, kind] + flags + RawPlist.be(UInt64(id), 4) + body
}

func agentBody(_ body: [String: PropertyListValue]) -> [UInt8] { BinaryPropertyList.encode(.dictionary(body)) }

func writeAgentSeeds(_ w: Writer) throws {
    let id = ActivityID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    let remote = RemoteActivity(deviceID: "00112233445566778899aabbccddeeff", deviceName: "Ada's laptop", activityID: id,
                                activityType: "com.example.docs.edit", title: "Report",
                                webpageURL: URLReference(string: "https://example.com/d?x=1"), supportsContinuationStreams: true,
                                isWebOnly: false, firstSeen: Timestamp(timeIntervalSince1970: 1_700_000_000.123),
                                teamIdentifier: "A1B2C3D4E5", bundleIdentifier: "com.example.docs")
    let manifest = try Manifest(bundleIdentifier: "com.example.docs", teamIdentifier: "A1B2C3D4E5",
                                activityTypes: ["com.example.docs.edit", "INSendMessageIntent"])
    var claiming = manifest
    try claiming.declare(webDomain: "docs.example.com")
    try claiming.declare(webDomain: "*.example.org")
    let advert = Advertisement(activityID: id, activityType: "com.example.docs.edit", title: "Grüße 👋",
                               bundleIdentifier: "com.example.docs", teamIdentifier: "A1B2C3D4E5",
                               webpageURL: URLReference(string: "https://example.com/docs/42"),
                               expirationDate: Timestamp(timeIntervalSince1970: 1_800_000_000), supportsContinuationStreams: true)
    let status = AgentStatus(deviceID: Array(0..<16), deviceName: "Desk", role: .full, channelPort: 49_152, beaconPort: 52_370,
                             clients: 2, remotes: [.init(deviceID: Array(16..<32), deviceName: "Laptop",
                                                         addresses: ["192.0.2.1:49152", "[2001:db8::1]:49152"], verified: true,
                                                         lastHeardMilliseconds: 1200)],
                             counters: ["duplicates": 3, "refused": 0, "negative": -1])
    let messages: [(String, AgentMessage)] = [
        ("hello", .hello(AgentHello(manifest: manifest, pid: 4242))),
        ("hello-observer", .hello(AgentHello(manifest: manifest, pid: 1, observer: true))),
        ("hello-web-domains", .hello(AgentHello(manifest: claiming, pid: 4243))),
        ("welcome", .welcome(AgentWelcome(agentVersion: "0.1.0", deviceID: Array(0..<16), deviceName: "Desk", role: .sendOnly,
                                          accountID: "0011223344556677"))),
        ("advertise", .advertise(advert)),
        ("advertise-minimal", .advertise(Advertisement(activityID: id, activityType: "t", title: nil, bundleIdentifier: "b",
                                                       teamIdentifier: "T", webpageURL: nil, expirationDate: nil,
                                                       supportsContinuationStreams: false))),
        ("withdraw", .advertise(nil)),
        ("remote-available", .remote(.available(remote))), ("remote-updated", .remote(.updated(remote))),
        ("remote-withdrawn", .remote(.withdrawn(remote))),
        ("fetch", .fetch(id)), ("payload", .payload(Array(0..<64))), ("payload-empty", .payload([])),
        ("provide", .provide(id)), ("confirm", .confirm(id)), ("continued", .continued(id)),
        ("open-stream", .openStream(id)), ("stream", .stream), ("accept-stream", .acceptStream(id)), ("ok", .ok),
        ("continue", .continueActivity(remote)),
        ("error", .error(HandoffError(.remoteApplicationTimedOut, "the other device did not answer"))),
        ("status-request", .statusRequest), ("status", .status(status)), ("choose", .choose(id)),
        ("undelivered", .undelivered(id, HandoffError(.remoteApplicationTimedOut, "the app did not answer in time"))),
        ("offer", .offer(id, Array(0..<64))), ("offer-withdrawn", .offer(id, nil)), ("served", .served(id)),
        ("index", .index(id, Array(0..<64))), ("forget-ids", .forget(.identifiers(["doc-1", "Grüße 👋"]))),
        ("forget-all", .forget(.all)),
        ("bringing", .bringing(AgentBringing(activityID: id, name: "plan.txt", received: 4 << 20, total: 64 << 20))),
    ]
    precondition(Set(messages.map { $0.1.kind }) == Set(AgentMessage.Kind.allCases), "a message kind has no seed")
    // Each from both sides: the one that may not send it is refused.
    for (name, message) in messages {
        let bytes = try AgentFrame(message, requestID: AgentFrame.needsRequestID(message) ? 0x0102_0304 : 0).encoded()
        w("agent-message", name + "-app", agentInput(.app, bytes))
        w("agent-message", name + "-agent", agentInput(.agent, bytes))
    }
    // A few broken ones, so the refusals are in the corpus from the start.
    let fetch = try AgentFrame(.fetch(id), requestID: 7).encoded()
    w("agent-message", "unknown-type", agentInput(.app, agentDatagram(200, id: 9)))
    w("agent-message", "flags", agentInput(.app, agentDatagram(5, id: 7, Array(fetch[8...]), flags: [0, 1])))
    w("agent-message", "event-with-id", agentInput(.app, agentDatagram(8, id: 7, Array(fetch[8...]))))
    w("agent-message", "body-truncated", agentInput(.app, Array(fetch.dropLast(5))))
    w("agent-message", "body-not-a-dictionary", agentInput(.agent, agentDatagram(13, id: 1, BinaryPropertyList.encode(.array([])))))
}

/// Hostile datagrams: each must be refused.
func writeAgentRegressions(_ w: Writer) throws {
    let id = ActivityID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!
    let fetchBody = agentBody(["activityID": .data(id.bytes)])
    w("agent-message", "empty", [UInt8]())
    w("agent-message", "header-7", agentInput(.app, [1, 13, 0, 0, 0, 0, 1]))
    // FORGET names identifiers or all, never both, never none, never "".
    w("agent-message", "forget-both", agentInput(.app, agentDatagram(22, id: 3, agentBody(["all": .boolean(true), "identifiers": .array([.string("a")])]))))
    w("agent-message", "forget-nothing", agentInput(.app, agentDatagram(22, id: 3, agentBody(["identifiers": .array([])]))))
    w("agent-message", "forget-empty-id", agentInput(.app, agentDatagram(22, id: 3, agentBody(["identifiers": .array([.string("")])]))))
    // BRINGING: never more received than the total, never with an id.
    let bringing: [String: PropertyListValue] = ["activityID": .data(id.bytes), "name": .string("a"), "received": .integer(2), "total": .integer(1)]
    w("agent-message", "bringing-over-total", agentInput(.agent, agentDatagram(23, id: 0, agentBody(bringing))))
    w("agent-message", "bringing-with-id", agentInput(.agent, agentDatagram(23, id: 3, agentBody(bringing.merging(["received": .integer(1)]) { $1 }))))
    w("agent-message", "index-with-id", agentInput(.app, agentDatagram(21, id: 3, agentBody(["activityID": .data(id.bytes), "payload": .data([1])]))))
    w("agent-message", "version-2", agentInput(.app, agentDatagram(5, id: 1, fetchBody, version: 2)))
    // A payload as large as the whole datagram may be: the datagram is over.
    w("agent-message", "over-max-datagram", agentInput(.agent, agentDatagram(6, id: 1, agentBody(["payload": .data(Array(repeating: 1, count: AgentFrame.maxSize))]))))
    w("agent-message", "fetch-from-agent", agentInput(.agent, agentDatagram(5, id: 1, fetchBody)))
    w("agent-message", "fetch-without-id", agentInput(.app, agentDatagram(5, id: 0, fetchBody)))
    w("agent-message", "fetch-15-byte-id", agentInput(.app, agentDatagram(5, id: 1, agentBody(["activityID": .data(Array(0..<15))]))))
    w("agent-message", "ok-bad-magic", agentInput(.app, agentDatagram(13, id: 1, Array("bplist01".utf8))))
    // Shared references: a body of a few hundred bytes standing for gigabytes.
    for (name, build) in [("bomb-1000x1000x4k", squareBomb), ("bomb-doubling-2e40", doublingBomb), ("cycle", cycle)] as [(String, (inout RawPlist) -> UInt32)] {
        var p = RawPlist()
        let key = p.add(RawPlist.ascii("activityID")), value = build(&p)
        let top = p.add(RawPlist.dict([key], [value]))
        w("agent-message", name, agentInput(.app, agentDatagram(5, id: 1, p.bytes(top: top))))
    }

    // The codec's first findings (the target's properties, found by reading
    // the codec while writing the target). A date from 2^52 ms on moved by
    // 1 ms on each relay (Timestamp is a Double), so m2 != m3:
    let remote: [String: PropertyListValue] = [
        "deviceID": .data(Array(0..<16)), "deviceName": .string("x"), "activityID": .data(id.bytes),
        "type": .string("com.example.docs.edit"), "team": .string("T"), "bundle": .string("b"),
        "firstSeen": .integer(4_438_484_538_790_688),
    ]
    w("agent-message", "date-drifts-1ms", agentInput(.agent, agentDatagram(4, id: 0, agentBody(["change": .integer(0), "activity": .dictionary(remote)]))))
    let advert: [String: PropertyListValue] = ["activityID": .data(id.bytes), "type": .string("t"), "bundle": .string("b"), "team": .string("T")]
    w("agent-message", "expiration-negative", agentInput(.app, agentDatagram(3, id: 0, agentBody(advert.merging(["expiration": .integer(-1)]) { $1 }))))
    // A URL of raw spaces is accepted and sent on percent-encoded: three
    // times as long, over the string bound, so the next reader refused it.
    let spaces = "https://example.com/" + String(repeating: " ", count: 3000)
    w("agent-message", "url-grows-percent-encoded", agentInput(.app, agentDatagram(3, id: 0, agentBody(advert.merging(["url": .string(spaces)]) { $1 }))))
    // 512 references to one remote whose 20 addresses are one shared string:
    // 2.5 KB, within the reader's limits, but 150 KB written
    // out, so encoded() threw for a message that had been accepted.
    var p = RawPlist()
    let keys = ["deviceID", "deviceName", "addresses", "verified", "lastHeard"].map { p.add(RawPlist.ascii($0)) }
    let address = p.add(RawPlist.ascii("a"))
    let values = [p.add(RawPlist.marker(0x4, 16) + Array(0..<16)), p.add(RawPlist.ascii("d")),
                  p.add(RawPlist.array(Array(repeating: address, count: 20))), p.add([0x09]), p.add(RawPlist.int(0))]
    let one = p.add(RawPlist.dict(keys, values))
    let remotes = p.add(RawPlist.array(Array(repeating: one, count: 512)))
    let top: [(String, UInt32)] = [("deviceID", values[0]), ("deviceName", values[1]), ("role", p.add(RawPlist.ascii("full"))),
                                   ("channelPort", values[4]), ("beaconPort", values[4]), ("clients", values[4]),
                                   ("remotes", remotes), ("counters", p.add(RawPlist.dict([], [])))]
    let topKeys = top.map { p.add(RawPlist.ascii($0.0)) }
    let status = p.add(RawPlist.dict(topKeys, top.map { $0.1 }))
    w("agent-message", "status-shared-remotes-150k", agentInput(.agent, agentDatagram(16, id: 1, p.bytes(top: status))))
}

// MARK: - Desktop entries (the agent's reader, docs/agent.md §5)

func writeDesktopEntrySeeds(_ w: Writer) {
    w("desktop-entry", "handoff-app", """
    # An app that continues notes
    [Desktop Entry]
    Type=Application
    Version=1.5
    Name=Notes
    Name[de]=Notizen
    Name[sr_RS@latin]=Beleške
    Comment=Take notes\\sand\\tcontinue them
    Exec=notes --new-window %U
    TryExec=notes
    Icon=org.example.Notes
    Categories=Office;TextEditor;
    Keywords[de]=Notiz;Text\\;Liste;
    X-Handoff-ActivityTypes=com.example.notes.edit;com.example.notes.view;
    X-Handoff-TeamIdentifier=A1B2C3D4E5
    X-Handoff-BundleIdentifier=org.example.Notes

    [Desktop Action new-window]
    Name=New Window
    Exec=notes --new-window

    """)
    w("desktop-entry", "web-domains", """
    [Desktop Entry]
    Type=Application
    Name=Docs
    Exec=docs %U
    X-Handoff-WebDomains=docs.example.com;*.Example.org;bad domain;
    X-Handoff-TeamIdentifier=A1B2C3D4E5

    """)
    w("desktop-entry", "dbus-app", """
    [Desktop Entry]
    Type=Application
    Name=Activatable
    DBusActivatable=true
    Hidden=false
    NoDisplay=true
    Path=/tmp
    OnlyShowIn=GNOME;KDE;
    X-Handoff-ActivityTypes=INSendMessageIntent
    X-Handoff-TeamIdentifier=TEAM1
    """)
    w("desktop-entry", "exec-quoting", """
    [Desktop Entry]
    Type=Application
    Name=Quoting
    Exec="/opt/My App/bin/app" --title "two words" "a\\\\\\\\b" "c\\\\$d" "e\\\\"f" "g\\\\`h" 100%% --file=%f %i %c %k
    X-Web=https://example.com/a/b?c=d&e=%2F#f
    X-Bad=app $HOME; rm -rf ~ | cat
    """)
}

func writeDesktopEntryRegressions(_ w: Writer) {
    let header = "[Desktop Entry]\n"
    w("desktop-entry", "over-64k", header + "Comment=" + String(repeating: "x", count: 65_536) + "\n")
    w("desktop-entry", "lines-5000", header + String(repeating: "#\n", count: 5000))
    w("desktop-entry", "keys-2100", header + (0..<2100).map { "K\($0)=v\n" }.joined())
    w("desktop-entry", "groups-65", header + (0..<65).map { "[G\($0)]\n" }.joined())
    w("desktop-entry", "crlf", "[Desktop Entry]\r\nType=Application\r\n")
    w("desktop-entry", "nul", Array(header.utf8) + Array("Name=a".utf8) + [0] + Array("b\n".utf8))
    w("desktop-entry", "utf8-invalid", Array(header.utf8) + Array("Name=".utf8) + [0xC3, 0x28, 0xFF, 0x0A])
    w("desktop-entry", "escapes-60k", header + "Exec=" + String(repeating: "\\\\", count: 30_000) + "\n")
    w("desktop-entry", "semicolons-60k", header + "X-Handoff-ActivityTypes=" + String(repeating: ";", count: 60_000) + "\n")
    w("desktop-entry", "quotes-60k", header + "Exec=a " + String(repeating: "\"\" ", count: 20_000) + "\n")
    w("desktop-entry", "percent-60k", header + "Exec=a " + String(repeating: "%f", count: 30_000) + "\n")
    w("desktop-entry", "no-main-group", "[Other]\nA=b\n")
}

// MARK: - The settings file (docs/agent.md "Settings")

func writeSettingsSeeds(_ w: Writer) {
    let device = "0123456789abcdef0123456789abcdef"
    w("settings-file", "all-keys", HandoffSettings(paused: true, devices: [device: .init(offer: false, accept: true, name: "Laptop")],
                                                   mutedApps: ["com.example.Notes"]).fileBytes)
    w("settings-file", "unknown-kept", "# comment\n[Handoff]\nPaused=false\nTheme=dark\n[Schedule]\nQuiet=22-07\n")
    w("settings-file", "empty", "")
    w("settings-file", "bad-boolean", "[Handoff]\nPaused=yes\n")
    w("settings-file", "bad-device", "[Device 0123]\nOffer=false\n")
    w("settings-file", "groups-513", (0..<513).map { "[App a\($0)]\nMuted=true\n" }.joined())
    var documents = HandoffSettings()
    documents.documents.maxSize = 1 << 20
    documents.documents.syncWait = 12
    documents.documents.exclude = ["/home/a/Private", "/home/a/semi;colon"]
    documents.documents.elsewhere = true
    documents.documents.folders = ["Papers": "/home/a/Papers", "Band Scores": "/srv/scores"]
    w("settings-file", "documents", documents.fileBytes)
}

// MARK: - The places' configuration files (docs/documents.md §2)

func writeDocumentPlaceSeeds(_ w: Writer) {
    // Written by Debian 12's syncthing 1.19.2 (`syncthing -generate`), its API key blanked.
    if let real = try? readRepositoryFile("Tests/fixtures/documents/syncthing-1.19.2-config.xml") {
        w("syncthing-config", "debian-1.19.2", real)
    }
    w("syncthing-config", "folders", """
        <configuration version="37">
            <folder id="abcd-1234" path="~/Sync/" type="sendreceive"><paused>true</paused></folder>
            <folder id="enc" path="/srv/enc" type="receiveencrypted"></folder>
            <defaults><folder id="" path="~"></folder></defaults>
        </configuration>
        """)
    w("cloud-config", "nextcloud", """
        [General]
        clientVersion=3.7.3

        [Accounts]
        0\\Folders\\1\\localPath=/home/alice/Nextcloud/
        0\\Folders\\1\\targetPath=/
        0\\FoldersWithPlaceholders\\2\\localPath="/home/alice/Work, shared"
        0\\FoldersWithPlaceholders\\2\\targetPath=/Work
        0\\dav_user=alice
        0\\url=https://Cloud.Example.com:8443/nextcloud
        version=2
        """)
    w("cloud-config", "owncloud-escapes", "[Accounts]\r\n0\\url=https://demo.owncloud.com\r\n0\\user=admin\r\n"
        + "0\\Folders\\1\\localPath=/home/a/\\x4f\\x77nCloud\r\n0\\Folders\\1\\targetPath=@@Shared\r\n")
}

func writeDocumentPlaceRegressions(_ w: Writer) {
    w("syncthing-config", "bomb-billion-laughs", "<?xml version=\"1.0\"?><!DOCTYPE configuration [<!ENTITY a \"aaaaaaaaaa\">"
        + "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">]>"
        + "<configuration><folder id=\"&c;\" path=\"/x\"/></configuration>")
    w("syncthing-config", "count-1025-folders", "<configuration>" + (0..<1025).map { "<folder id='f\($0)' path='/f\($0)'/>" }.joined() + "</configuration>")
    w("syncthing-config", "deep-65", "<configuration>" + String(repeating: "<a>", count: 65) + String(repeating: "</a>", count: 65) + "</configuration>")
    w("syncthing-config", "external-entity", "<!DOCTYPE configuration [<!ENTITY x SYSTEM \"file:///etc/passwd\">]>"
        + "<configuration><folder id=\"&x;\" path=\"/x\"/></configuration>")
    w("cloud-config", "qt-escapes-unfinished", "[Accounts]\n0\\url=https://a\n0\\user=u\n0\\Folders\\1\\localPath=\"/a\\x\n0\\Folders\\1\\targetPath=\\\n")
    w("cloud-config", "count-16385-lines", String(repeating: "\n", count: 16385))
}

/// A file of the repository (the seeds are written from its root).
func readRepositoryFile(_ path: String) throws -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { throw HandoffError(.io, "cannot open \(path)") }
    defer { close(fd) }
    var bytes: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return bytes }
        bytes += chunk[0..<n]
    }
}

// MARK: - The relay file (docs/agent.md §12 "Where the configuration lives")

func writeRelayFileSeeds(_ w: Writer) {
    w("relay-file", "tls-user", "url=mqtts://alice@broker.example:8883\n")
    w("relay-file", "ca-v6", "url=mqtts://[2001:db8::7]:8884\nca=/etc/ssl/relay-ca.pem\n")
    w("relay-file", "plain-allowed", "url=mqtt://ada%40example.org@192.0.2.9:1883\nallow-plain=yes\nfuture=1\n")
}

func writeRelayFileRegressions(_ w: Writer) {
    w("relay-file", "plain-elsewhere", "url=mqtt://broker.example:1883\n")
    w("relay-file", "password-in-url", "url=mqtts://alice:secret@broker.example\n")
    w("relay-file", "twice", "url=mqtts://h\nurl=mqtts://h\n")
    w("relay-file", "no-url", "ca=/etc/ca.pem\n")
    w("relay-file", "port-0", "url=mqtts://h:0\n")
    w("relay-file", "path", "url=mqtts://h/x\n")
    w("relay-file", "v6-unclosed", "url=mqtts://[::1\n")
    w("relay-file", "bad-escape", "url=mqtts://%zz@h\n")
    w("relay-file", "over-4k", "url=mqtts://" + String(repeating: "a", count: 5000) + "\n")
}

// MARK: - tailscaled's LocalAPI answer (docs/PROTOCOL.md "Peer sources")

let tailnetStatusJSON = #"{"BackendState":"Running","Self":{"HostName":"me","UserID":7,"TailscaleIPs":["100.64.0.1"]},"Peer":{"nodekey:a":{"HostName":"desk","DNSName":"desk.tail1234.ts.net.","UserID":7,"Online":true,"TailscaleIPs":["100.64.0.2","fd7a:115c:a1e0::2"]},"nodekey:b":{"HostName":"bob","UserID":8,"Online":true,"TailscaleIPs":["100.64.0.3"]},"nodekey:c":{"HostName":"shared","UserID":7,"Online":true,"ShareeNode":true,"TailscaleIPs":["100.64.0.4"]}}}"#

/// Tagged nodes: one UserID ("tagged-devices"), kept only with a tag in common.
let tailnetTaggedJSON = #"{"BackendState":"Running","Self":{"UserID":9,"Tags":["tag:ada"],"TailscaleIPs":["100.64.0.1"]},"Peer":{"nodekey:a":{"HostName":"desk","UserID":9,"Tags":["tag:ada","tag:x"],"Online":true,"TailscaleIPs":["100.64.0.2"]},"nodekey:b":{"HostName":"ci","UserID":9,"Tags":["tag:ci"],"Online":true,"TailscaleIPs":["100.64.0.3"]},"nodekey:c":{"HostName":"plain","UserID":9,"Tags":null,"Online":true,"TailscaleIPs":["100.64.0.4"]}}}"#

func writeTailnetSeeds(_ w: Writer) {
    let body = tailnetStatusJSON
    let half = body.utf8.count / 2
    let chunks = String(half, radix: 16) + "\r\n" + String(decoding: Array(body.utf8)[..<half], as: UTF8.self) + "\r\n"
        + String(body.utf8.count - half, radix: 16) + "\r\n" + String(decoding: Array(body.utf8)[half...], as: UTF8.self) + "\r\n0\r\n\r\n"
    w("tailnet-status", "chunked", "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks)
    w("tailnet-status", "content-length", "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
    w("tailnet-status", "stopped", "HTTP/1.0 200 OK\r\n\r\n{\"BackendState\":\"Stopped\",\"Self\":null,\"Peer\":null}")
    w("tailnet-status", "forbidden", "HTTP/1.1 403 Forbidden\r\nContent-Length: 13\r\n\r\naccess denied")
    w("tailnet-status", "tagged", "HTTP/1.0 200 OK\r\n\r\n" + tailnetTaggedJSON)
}

// MARK: - Pairing (docs/PROTOCOL.md §9)

/// The documented run's frames (fixed keys and nonces, so the files stay
/// the same), cut as each side receives them, and a beacon.
func writePairingSeeds(_ w: Writer) {
    let run = { (start: Int, n: Int) in (start..<start + n).map { UInt8($0) } }
    var sponsor = PairingSponsorMachine(
        sessionID: run(0xc0, 16), accountKey: try! AccountKey(bytes: run(0, 32)), deviceName: "laptop",
        keyPair: X25519KeyPair.fromPrivateKey(run(0x00, 32))!, nonce: run(0xa0, 16), keyNonce: run(0xd0, 12))
    var joiner = PairingJoinerMachine(
        sessionID: run(0xc0, 16), deviceName: "desktop",
        keyPair: X25519KeyPair.fromPrivateKey(run(0x20, 32))!, nonce: run(0xb0, 16), acceptNonce: run(0xe0, 12))
    let commit = sponsor.start()
    let share = try! joiner.receive(commit).send[0]
    let reveal = try! sponsor.receive(share).send[0]
    _ = try! joiner.receive(reveal)
    let accept = try! joiner.answer(true).send[0]
    _ = try! sponsor.receive(accept)
    let key = try! sponsor.answer(true).send[0]
    w("pairing-messages", "joiner-side", [commit, reveal, key].flatMap { $0.encoded() })
    w("pairing-messages", "sponsor-side", [share, accept].flatMap { $0.encoded() })
    w("pairing-messages", "reject", PairingMessage.reject.frame.encoded())
    w("pairing-messages", "beacon", PairingBeacon(port: 52371, sessionID: run(0xc0, 16)).encoded())
    w("pairing-messages", "named-beacon", PairingBeacon(port: 52371, sessionID: run(0xc0, 16), name: "Ada's tablet").encoded())

    // The documented one-time-code run (code 4711-0828, RFC 9382's x and y).
    let code = PairingMethod.code(try! OneTimeCode(typed: "4711-0828"))
    let hex = { (text: String) in stride(from: 0, to: text.count, by: 2).map { UInt8(String(Array(text)[$0..<$0 + 2]), radix: 16)! } }
    var codeSponsor = PairingSponsorMachine(
        sessionID: run(0xc0, 16), accountKey: try! AccountKey(bytes: run(0, 32)), deviceName: "laptop", method: code,
        keyNonce: run(0xd0, 12), spakeSecret: hex("43dd0fd7215bdcb482879fca3220c6a968e66d70b1356cac18bb26c84a78d729"))
    var codeJoiner = PairingJoinerMachine(
        sessionID: run(0xc0, 16), deviceName: "desktop", method: code, acceptNonce: run(0xe0, 12),
        spakeSecret: hex("dcb60106f276b02606d8ef0a328c02e4b629f84f89786af5befb0bc75b6e66be"))
    let codeStart = codeSponsor.start()
    let codeShare = try! codeJoiner.receive(codeStart).send[0]
    let codeConfirm = try! codeSponsor.receive(codeShare).send[0]
    let codeAccept = try! codeJoiner.receive(codeConfirm).send[0]
    let codeKey = try! codeSponsor.receive(codeAccept).send[0]
    w("pairing-messages", "code-joiner-side", [codeStart, codeConfirm, codeKey].flatMap { $0.encoded() })
    w("pairing-messages", "code-sponsor-side", [codeShare, codeAccept].flatMap { $0.encoded() })
    w("pairing-messages", "code-beacon", PairingBeacon(port: 52371, sessionID: run(0xc0, 16), kind: PairingBeacon.codeJoinerKind).encoded())
    w("pairing-code", "one-time-code", "4711-0828")
    w("pairing-code", "one-time-code-typo", "4711-0882")
}

/// Hostile pairing input: lengths out of range or not the message's size,
/// unknown types, another version, messages out of order, a bad beacon.
func writePairingRegressions(_ w: Writer) {
    let session: [UInt8] = Array(0xc0...0xcf)
    func frame(_ n: UInt32, _ type: UInt8, _ payload: [UInt8]) -> [UInt8] {
        [UInt8(n >> 24), UInt8(n >> 16 & 0xff), UInt8(n >> 8 & 0xff), UInt8(n & 0xff), type] + payload
    }
    w("pairing-messages", "length-max", frame(0xffff_ffff, 0x21, []))
    w("pairing-messages", "length-zero", [0, 0, 0, 0])
    w("pairing-messages", "commit-long", frame(51, 0x21, [1] + session + [UInt8](repeating: 0, count: 33)))
    w("pairing-messages", "commit-version-2", frame(50, 0x21, [2] + session + [UInt8](repeating: 0, count: 32)))
    w("pairing-messages", "reject-with-payload", frame(2, 0x27, [0]))
    w("pairing-messages", "type-0x20", frame(1, 0x20, []))
    w("pairing-messages", "share-truncated", frame(49, 0x22, [UInt8](repeating: 9, count: 10)))
    w("pairing-messages", "key-before-commit", frame(61, 0x25, [UInt8](repeating: 7, count: 60)))
    var beacon = PairingBeacon(port: 52371, sessionID: session).encoded()
    beacon[95] = 1
    w("pairing-messages", "beacon-padding", beacon)
}

// MARK: - The relay (PROTOCOL.md §11)

let relayPipe = RelayPipeID(bytes: Array(0xC0...0xCF))!

func writeRelaySeeds(_ w: Writer) {
    // Pipe frames of every kind, with and without the topic's pipe check.
    let frames: [(String, RelayPipeFrame)] = [
        ("open", RelayPipeFrame(kind: .open, pipe: relayPipe, seq: 0, ack: 0, window: 65536)),
        ("data", RelayPipeFrame(kind: .data, pipe: relayPipe, seq: 1, ack: 1, window: 65536, payload: Array("hello".utf8))),
        ("data-full", RelayPipeFrame(kind: .data, pipe: relayPipe, seq: 2, ack: 1, window: 0, payload: Array(repeating: 0x17, count: 16_384))),
        ("ack-answer", RelayPipeFrame(kind: .ack, answer: true, pipe: relayPipe, seq: 3, ack: 2, window: 100)),
        ("close", RelayPipeFrame(kind: .close, pipe: relayPipe, seq: 3, ack: 2, window: 100)),
        ("reset", RelayPipeFrame.reset(pipe: relayPipe, seq: 4, ack: 2, window: 0, reason: .idle)),
    ]
    for (name, frame) in frames {
        w("relay-pipe-frame", name, [1] + frame.encoded())
        w("relay-pipe-frame", name + "-any-topic", [0] + frame.encoded())
    }
    // Pipe operations (relay-pipe.swift): write, poll, deliver, read, close.
    w("relay-pipe", "transfer", [0, 50, 2, 3, 0, 3, 0, 4, 0, 2, 3, 0, 6, 255, 2, 4, 0, 5, 20, 2])
    w("relay-pipe", "lossy", [0, 100, 2, 0x13, 0, 3, 0, 0x23, 0, 2, 4, 0, 5, 17, 2, 3, 0, 3, 1, 6, 100, 5, 255, 2, 3, 0])
    w("relay-pipe", "close", [0, 10, 7, 2, 3, 0, 3, 0, 2, 4, 0, 4, 0, 0x17, 2, 3, 0, 4, 0, 6, 10])
    w("relay-pipe", "idle", [2, 5, 255, 5, 255, 2, 5, 255, 2, 4, 0, 3, 0])
    w("relay-pipe", "forge", [2, 3, 0, 8] + [4] + RelayPipeFrame(kind: .data, pipe: relayPipe, seq: 1, ack: 0, window: 10, payload: [0]).encoded().prefix(32) + [1, 2, 3, 4, 5, 6, 7])
    // Device topics: gone plaintexts (the target seals them) and a beacon's.
    let gone = RelayGoneMessage(deviceID: Array(0xA0...0xAF), connected: 1_700_000_000_000, session: Array(0xE0...0xEF))
    w("relay-device-topic", "gone-plaintext", gone.encoded())
    w("relay-device-topic", "gone-other-device", RelayGoneMessage(deviceID: Array(0xD0...0xDF), connected: 1, session: Array(0xE0...0xEF)).encoded())
    w("relay-device-topic", "gone-sealed-elsewhere", gone.sealed(key: Array(repeating: 1, count: 32), nonce: Array(0..<12)))
}

func writeRelayRegressions(_ w: Writer) {
    // Hand-made attacks on the pipe codec: each must be refused.
    let ack = RelayPipeFrame(kind: .ack, pipe: relayPipe, seq: 1, ack: 1, window: 1).encoded()
    func with(_ index: Int, _ value: UInt8, _ bytes: [UInt8] = ack) -> [UInt8] { var b = bytes; b[index] = value; return b }
    w("relay-pipe-frame", "version-2", [1] + with(0, 2))
    w("relay-pipe-frame", "version-0", [1] + with(0, 0))
    w("relay-pipe-frame", "kind-6", [1] + with(1, 6))
    w("relay-pipe-frame", "reserved-flag", [1] + with(2, 0x80))
    w("relay-pipe-frame", "zero-byte-set", [1] + with(3, 1))
    w("relay-pipe-frame", "short-header", [1] + Array(ack.prefix(31)))
    w("relay-pipe-frame", "ack-with-payload", [1] + ack + [0])
    w("relay-pipe-frame", "empty-data", [1] + with(1, 2))
    w("relay-pipe-frame", "reset-one-byte", [1] + with(1, 5) + [3])
    w("relay-pipe-frame", "other-pipe", [1] + with(4, 0))
    w("relay-pipe-frame", "oversized", [0] + with(1, 2) + Array(repeating: 0, count: 16_385))
}

// MARK: - The browser bridge (docs/browser.md)

/// One native-messaging frame: a little-endian 32-bit length, then the text.
func nativeFrame(_ text: String) -> [UInt8] { nativeLength(UInt32(text.utf8.count)) + Array(text.utf8) }
func nativeLength(_ n: UInt32) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n >> 16 & 0xFF), UInt8(n >> 24)] }

/// Seeds: a first byte (how many bytes a read), then frames.
func writeNativeMessagingSeeds(_ w: Writer) {
    w("native-messaging", "session", [7] + nativeFrame(#"{"type":"hello","browser":"firefox","version":1}"#)
        + nativeFrame(#"{"type":"current","url":"https://example.com/a?b=1","title":"Grüße 👋 \u00e9"}"#)
        + nativeFrame(#"{"type":"status"}"#) + nativeFrame(#"{"type":"resign"}"#))
    w("native-messaging", "one-read", [255] + nativeFrame(#"{"type":"current","url":"http://[::1]:8080/x","title":null}"#))
    w("native-messaging", "escapes", [0] + nativeFrame(#"{"type":"current","url":"https://e.com/","title":"\ud83d\ude00\n\t\"\\"}"#))
    w("native-messaging", "refused", [3] + nativeFrame(#"{"type":"unknown"}"#) + nativeFrame("[1,2,{}]") + nativeFrame(""))
}

/// Hand-made hostile inputs (HandoffBridgeTests replays them).
func writeNativeMessagingRegressions(_ w: Writer) {
    w("native-messaging", "over-limit-skipped", [200] + nativeLength(65_537) + [UInt8](repeating: 0x7B, count: 65_537)
        + nativeFrame(#"{"type":"status"}"#))
    w("native-messaging", "length-over-64mib", [0] + nativeLength(64 << 20 + 1) + nativeFrame(#"{"type":"status"}"#))
    w("native-messaging", "end-mid-frame", [1] + nativeLength(100) + Array("{\"type\"".utf8))
    w("native-messaging", "deep-nesting", [255] + nativeFrame(String(repeating: "[", count: 5000)))
    w("native-messaging", "lone-surrogate", [9] + nativeFrame(#"{"type":"current","url":"https://e.com/","title":"\ud800"}"#))
    w("native-messaging", "credentials", [4] + nativeFrame(#"{"type":"current","url":"https://u:p@e.com/"}"#))
    w("native-messaging", "javascript-url", [4] + nativeFrame(#"{"type":"current","url":"javascript:alert(1)"}"#))
    w("native-messaging", "huge-number", [4] + nativeFrame(#"{"type":"hello","version":1e400}"#))
    w("native-messaging", "not-utf8", [4] + nativeLength(6) + [0x22, 0xC3, 0x28, 0xFF, 0xFE, 0x22])
}
