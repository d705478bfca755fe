// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import Testing

@Suite struct BeaconReplayGuardTests {
    static let now: UInt64 = 1_700_000_000_000

    func beacon(device: UInt8 = 1, sequence: UInt64, at timestamp: UInt64 = now) -> Beacon {
        Beacon(kind: .advert, timestamp: timestamp, sequence: sequence,
               deviceID: Array(repeating: device, count: 16), deviceName: "d", role: .full, channelPort: 1,
               activity: nil)
    }

    @Test func freshBeaconsPassOnceInOrder() {
        let guardian = ReplayGuard()
        #expect(guardian.accept(beacon(sequence: 5), nowMilliseconds: Self.now))
        #expect(!guardian.accept(beacon(sequence: 5), nowMilliseconds: Self.now))           // duplicate
        #expect(!guardian.accept(beacon(sequence: 4), nowMilliseconds: Self.now))           // lower
        #expect(guardian.accept(beacon(sequence: 6), nowMilliseconds: Self.now))
        #expect(guardian.accept(beacon(sequence: 1000), nowMilliseconds: Self.now))        // gaps are fine
        #expect(!guardian.accept(beacon(sequence: 999), nowMilliseconds: Self.now))
    }

    @Test func staleAndFutureTimestampsAreRejected() {
        let guardian = ReplayGuard(window: 30)
        let now = Self.now
        #expect(!guardian.accept(beacon(sequence: 1, at: now - 31_000), nowMilliseconds: now))
        #expect(!guardian.accept(beacon(sequence: 2, at: now + 31_000), nowMilliseconds: now))
        #expect(!guardian.accept(beacon(sequence: 3, at: 0), nowMilliseconds: now))
        #expect(!guardian.accept(beacon(sequence: 4, at: .max), nowMilliseconds: now))
        // Rejections leave no trace: the device is still unknown.
        #expect(guardian.deviceCount == 0)
        // The window's edges are inside.
        #expect(guardian.accept(beacon(sequence: 5, at: now - 30_000), nowMilliseconds: now))
        #expect(guardian.accept(beacon(sequence: 6, at: now + 30_000), nowMilliseconds: now))
        // A replay of an accepted beacon later on is stale and old anyway.
        #expect(!guardian.accept(beacon(sequence: 6, at: now + 30_000), nowMilliseconds: now + 60_000))
        // A smaller window is honoured.
        let tight = ReplayGuard(window: 1)
        #expect(!tight.accept(beacon(sequence: 1, at: now - 1_001), nowMilliseconds: now))
        #expect(tight.accept(beacon(sequence: 1, at: now - 1_000), nowMilliseconds: now))
    }

    @Test func devicesAreIndependent() {
        let guardian = ReplayGuard()
        #expect(guardian.accept(beacon(device: 1, sequence: 100), nowMilliseconds: Self.now))
        #expect(guardian.accept(beacon(device: 2, sequence: 1), nowMilliseconds: Self.now))
        #expect(guardian.accept(beacon(device: 3, sequence: 100), nowMilliseconds: Self.now))
        #expect(!guardian.accept(beacon(device: 2, sequence: 1), nowMilliseconds: Self.now))
        #expect(guardian.accept(beacon(device: 2, sequence: 2), nowMilliseconds: Self.now))
        #expect(!guardian.accept(beacon(device: 1, sequence: 100), nowMilliseconds: Self.now))
        #expect(guardian.deviceCount == 3)
    }

    @Test func leastRecentlyHeardDeviceIsEvictedBeyondMax() {
        let guardian = ReplayGuard(maxDevices: 3)
        for d: UInt8 in 1...3 { #expect(guardian.accept(beacon(device: d, sequence: 10), nowMilliseconds: Self.now)) }
        // Device 1 is heard again, so device 2 is now the least recent.
        #expect(guardian.accept(beacon(device: 1, sequence: 11), nowMilliseconds: Self.now))
        #expect(guardian.accept(beacon(device: 4, sequence: 10), nowMilliseconds: Self.now))
        #expect(guardian.deviceCount == 3)
        // Those still remembered refuse replays...
        #expect(!guardian.accept(beacon(device: 1, sequence: 11), nowMilliseconds: Self.now))
        #expect(!guardian.accept(beacon(device: 3, sequence: 10), nowMilliseconds: Self.now))
        #expect(!guardian.accept(beacon(device: 4, sequence: 10), nowMilliseconds: Self.now))
        // ...the evicted one was forgotten (and comes back, evicting device 3).
        #expect(guardian.accept(beacon(device: 2, sequence: 10), nowMilliseconds: Self.now))
        #expect(guardian.deviceCount == 3)
        #expect(guardian.accept(beacon(device: 3, sequence: 10), nowMilliseconds: Self.now))
    }

    @Test func manyDevicesStayBounded() {
        let guardian = ReplayGuard(maxDevices: 100)
        for i in 0..<1000 {
            var b = beacon(sequence: 1)
            b.deviceID = Array(repeating: 0, count: 14) + [UInt8(i >> 8), UInt8(i & 0xFF)]
            #expect(guardian.accept(b, nowMilliseconds: Self.now))
        }
        #expect(guardian.deviceCount == 100)
        guardian.reset()
        #expect(guardian.deviceCount == 0)
    }

    @Test func concurrentAcceptsLetEachBeaconThroughOnce() async {
        let guardian = ReplayGuard()
        let accepted = await withTaskGroup(of: [UInt64].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (1...500).compactMap { s in
                        guardian.accept(beacon(sequence: UInt64(s)), nowMilliseconds: Self.now) ? UInt64(s) : nil
                    }
                }
            }
            return await group.reduce(into: [UInt64]()) { $0 += $1 }
        }
        // Sequences race, so some are skipped, but none passes twice.
        #expect(accepted.count == Set(accepted).count)
        #expect(accepted.contains(500))   // whoever gets there first
        #expect(!guardian.accept(beacon(sequence: 500), nowMilliseconds: Self.now))
    }
}
