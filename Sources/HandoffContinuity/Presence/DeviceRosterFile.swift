// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The roster on disk: `devices` next to the account (`AccountStore`'s
/// directory, mode 0600, written atomically: a temporary file, fsync,
/// rename), so it goes with the account it belongs to. Text, one line each:
///
///     account=<account id>
///     device=<id hex> <full|send-only> <last seen, ms since the epoch> <name>
///
/// The name comes last (it may hold spaces, never a control character).
/// A file of another account, a malformed line or an unknown key is
/// skipped, never an error: the roster is a cache of what beacons and
/// handshakes teach again.
public struct DeviceRosterFile: Sendable {
    /// At most `DeviceRoster.defaultCapacity` lines of at most ~140 bytes.
    public static let maxFileSize = 16 * 1024

    public let store: AccountStore
    public let accountID: String

    public init(store: AccountStore, accountID: String) {
        self.store = store
        self.accountID = accountID
    }

    public var path: String { store.directory + "/devices" }

    /// The roster as last written; empty when there is none, it belongs
    /// to another account or cannot be read (a file others may read is
    /// refused as the account's files are).
    public func load(capacity: Int = DeviceRoster.defaultCapacity) -> DeviceRoster {
        guard (try? store.checkDirectory()) != nil,
              let bytes = try? AccountFile.read(path, missing: "", maxSize: Self.maxFileSize),
              let text = String(validating: bytes, as: UTF8.self) else { return DeviceRoster(capacity: capacity) }
        return DeviceRoster(capacity: capacity, records: Self.parse(text, accountID: accountID))
    }

    public func save(_ roster: DeviceRoster) throws(HandoffError) {
        try store.ensureDirectory()
        _ = try AccountFile.writeAtomically(Array(Self.format(roster, accountID: accountID).utf8), to: path,
                                            directory: store.directory, replace: true)
    }

    static func format(_ roster: DeviceRoster, accountID: String) -> String {
        "account=\(accountID)\n" + roster.sorted.map { r in
            "device=\(r.id) \(r.role.name) \(r.lastSeen) \(r.name)\n"
        }.joined()
    }

    static func parse(_ text: String, accountID: String) -> [DeviceRoster.Record] {
        var records: [DeviceRoster.Record] = []
        var account: String?
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("account=") { account = String(line.dropFirst(8)); continue }
            guard line.hasPrefix("device=") else { continue }
            let fields = line.dropFirst(7).split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, fields[0].count == 32, fields[0].allSatisfy(\.isHexDigit),
                  let role = DeviceRole(name: String(fields[1])), let seen = UInt64(fields[2]),
                  case let name = String(fields[3]), (try? DeviceIdentity.validateName(name)) != nil
            else { continue }
            records.append(DeviceRoster.Record(id: fields[0].lowercased(), name: name, role: role, lastSeen: seen))
        }
        return account == accountID ? records : []
    }
}
