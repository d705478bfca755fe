// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing

/// The roster of verified devices and its file next to the account.
@Suite struct DeviceRosterTests {
    static func record(_ n: Int, seen: UInt64, name: String? = nil) -> DeviceRoster.Record {
        DeviceRoster.Record(id: String(repeating: String(format16(n)), count: 2), name: name ?? "Device \(n)",
                            role: n.isMultiple(of: 2) ? .full : .sendOnly, lastSeen: seen)
    }

    static func format16(_ n: Int) -> String {
        let hex = String(n, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    @Test func aNewDeviceOrAnotherNameIsWorthWritingALaterSightingIsNot() {
        var r = DeviceRoster()
        let new = r.saw(Self.record(1, seen: 10))
        let later = r.saw(Self.record(1, seen: 20))
        #expect(new && !later)
        #expect(r.records[Self.record(1, seen: 0).id]?.lastSeen == 20)
        let earlier = r.saw(Self.record(1, seen: 5))
        #expect(!earlier)  // never goes back
        #expect(r.records[Self.record(1, seen: 0).id]?.lastSeen == 20)
        let renamed = r.saw(Self.record(1, seen: 30, name: "Renamed"))
        #expect(renamed)
        r.heard(Self.record(1, seen: 0).id, at: 40)
        r.heard("unknown", at: 50)
        #expect(r.records.count == 1 && r.records.first?.value.lastSeen == 40)
    }

    @Test func theLeastRecentlySeenGoesWhenFull() {
        var r = DeviceRoster(capacity: 3)
        for n in 1...3 { r.saw(Self.record(n, seen: UInt64(100 + n))) }
        r.saw(Self.record(4, seen: 200))
        #expect(r.records.count == 3 && r.records[Self.record(1, seen: 0).id] == nil)
        // Loading more than fit keeps the most recent.
        let loaded = DeviceRoster(capacity: 2, records: (1...5).map { Self.record($0, seen: UInt64($0)) })
        #expect(Set(loaded.records.keys) == [Self.record(4, seen: 0).id, Self.record(5, seen: 0).id])
    }

    @Test func theFileRoundTripsIsPrivateAndBelongsToOneAccount() throws {
        try AccountFixtures.withTemporaryDirectory { dir in
            let store = AccountStore(directory: dir + "/handoff")
            let file = DeviceRosterFile(store: store, accountID: "00112233aabbccdd")
            #expect(file.load().records.isEmpty)  // none yet
            var r = DeviceRoster()
            r.saw(Self.record(1, seen: 1_700_000_000_000, name: "Kitchen laptop"))
            r.saw(Self.record(2, seen: 1_700_000_001_000))
            try file.save(r)
            var info = stat()
            #expect(stat(file.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
            #expect(file.load() == r)
            // Another account's roster is not this one's.
            #expect(DeviceRosterFile(store: store, accountID: "ffffffffffffffff").load().records.isEmpty)
            // Malformed lines are skipped, the rest kept.
            let text = "account=00112233aabbccdd\nnonsense\ndevice=zz full 1 Bad\ndevice=\(Self.record(3, seen: 0).id) full x Bad\n"
                + "device=\(Self.record(4, seen: 0).id) full 7 Good one\nfuture=1\n"
            #expect(DeviceRosterFile.parse(text, accountID: "00112233aabbccdd").map(\.name) == ["Good one"])
            // A file others may read is refused, as the account's are.
            chmod(file.path, 0o644)
            #expect(file.load().records.isEmpty)
        }
    }
}
