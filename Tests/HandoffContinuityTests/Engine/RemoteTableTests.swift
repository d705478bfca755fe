// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
@testable import HandoffRuntime
import HandoffTestSupport
import Testing

/// The gate: what a receiving app is offered from an authenticated beacon.
@Suite struct RemoteTableTests {
    func advert(team: String = "TEAM1", type: String = "com.example.app.edit", title: String? = "T",
                url: String? = nil, expiration: UInt64? = nil, id: [UInt8] = Array(0..<16), device: UInt8 = 1) -> Beacon {
        Beacon(kind: .advert, timestamp: 1, sequence: 1, deviceID: Array(repeating: device, count: 16), deviceName: "d",
               role: .full, channelPort: 9,
               activity: BeaconActivity(activityID: id, activityType: type, title: title, teamIdentifier: team,
                                        bundleIdentifier: "com.example.app", webpageURL: url, expiration: expiration,
                                        supportsContinuationStreams: false))
    }

    /// Applies a beacon from a device whose channel verifies.
    func apply(_ b: Beacon, _ table: inout RemoteTable, role: DeviceRole = .full) throws -> [RemoteActivityChange] {
        let (changes, verify) = table.apply(b, from: "127.0.0.1", manifest: try manifest(), ownRole: role, now: 0)
        guard let verify else { return changes }
        return changes + table.verified(hex(b.deviceID), at: verify, true)
    }

    @Test func nothingIsReportedUntilTheDeviceIsVerified() throws {
        var t = RemoteTable()
        let (changes, verify) = t.apply(advert(), from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: 0)
        #expect(changes.isEmpty)
        let channel = try #require(verify)
        #expect(channel == SocketAddress(host: "127.0.0.1", port: 9))
        // A second beacon while verifying asks for nothing more.
        #expect(t.apply(advert(), from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: 0.1).verify == nil)
        // A failed verification reports nothing, and retries only later.
        #expect(t.verified(hex(advert().deviceID), at: channel, false).isEmpty)
        #expect(t.apply(advert(), from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: 0.5).verify == nil)
        #expect(t.apply(advert(), from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: 2.5).verify != nil)
        let reported = t.verified(hex(advert().deviceID), at: channel, true)
        guard case .available? = reported.first else { Issue.record("\(reported)"); return }
    }

    /// `handoff devices` shows why a device is unreachable: the latest
    /// failure is kept until a verification succeeds.
    @Test func theLatestVerificationFailureIsKeptUntilOneSucceeds() throws {
        var t = RemoteTable()
        let id = hex(advert().deviceID)
        let channel = try #require(t.apply(advert(), from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: 0).verify)
        let refused = HandoffError(.connectionUnavailable, "connection refused")
        #expect(t.verified(id, at: channel, failure: refused, now: 1).isEmpty)
        #expect(t.entries[id]?.lastFailure == RemoteTable.VerificationFailure(channel: channel, error: refused, at: 1))
        #expect(t.entries[id]?.verified == false)
        let again = try #require(t.apply(advert(), from: "127.0.0.1", manifest: try manifest(), ownRole: .full, now: 3).verify)
        #expect(t.verified(id, at: again, failure: nil, now: 4).count == 1)
        #expect(t.entries[id]?.lastFailure == nil && t.entries[id]?.verified == true)
    }

    @Test func anotherChannelMeansVerifyingAgain() throws {
        var t = RemoteTable()
        _ = try apply(advert(), &t)
        let moved = t.apply(advert(), from: "127.0.0.2", manifest: try manifest(), ownRole: .full, now: 1)
        #expect(moved.verify == SocketAddress(host: "127.0.0.2", port: 9))
        #expect(moved.changes.isEmpty)
    }

    @Test func aLateWithdrawalOfAReplacedActivityChangesNothing() throws {
        var t = RemoteTable()
        _ = try apply(advert(id: Array(0..<16)), &t)
        _ = try apply(advert(id: Array(16..<32)), &t)
        var late = advert(id: Array(0..<16))
        late.kind = .withdraw
        #expect(try apply(late, &t).isEmpty)
        #expect(t.channel(offering: ActivityID(bytes: Array(16..<32))) != nil)
    }

    @Test func sameTeamAndDeclaredTypeIsOffered() throws {
        var t = RemoteTable()
        let changes = try apply(advert(), &t)
        guard case .available(let r)? = changes.first else { Issue.record("\(changes)"); return }
        #expect(!r.isWebOnly && changes.count == 1)
        #expect(t.channel(offering: r.activityID) == SocketAddress(host: "127.0.0.1", port: 9))
    }

    @Test func otherTeamOrUndeclaredTypeIsNotOffered() throws {
        var t = RemoteTable()
        #expect(try apply(advert(team: "OTHER"), &t).isEmpty)
        #expect(try apply(advert(type: "com.example.app.other", device: 2), &t).isEmpty)
    }

    @Test func withAWebPageItIsOfferedWebOnly() throws {
        var t = RemoteTable()
        let changes = try apply(advert(team: "OTHER", url: "https://example.com/"), &t)
        guard case .available(let r)? = changes.first else { Issue.record("\(changes)"); return }
        #expect(r.isWebOnly)
        #expect(try apply(advert(team: "OTHER", url: "ftp://example.com/", device: 3), &t).isEmpty)
    }

    @Test func sendOnlyDevicesAreNeverOffered() throws {
        var t = RemoteTable()
        #expect(try apply(advert(), &t, role: .sendOnly).isEmpty)
    }

    @Test func expiredIsNotOfferedAndExpiryWithdraws() throws {
        var t = RemoteTable()
        #expect(try apply(advert(expiration: 1), &t).isEmpty)
        let soon = wallMilliseconds() + 60_000
        #expect(try apply(advert(expiration: soon, device: 2), &t).count == 1)
        let changes = t.sweep(now: 0, lifetime: 100, wallMilliseconds: soon + 1)
        guard case .withdrawn? = changes.first else { Issue.record("\(changes)"); return }
    }

    @Test func changesAreAvailableUpdatedWithdrawn() throws {
        var t = RemoteTable()
        _ = try apply(advert(title: "a"), &t)
        #expect(try apply(advert(title: "a"), &t).isEmpty, "the same advert again changes nothing")
        guard case .updated(let r)? = try apply(advert(title: "b"), &t).first else { Issue.record("no update"); return }
        #expect(r.title == "b")
        let switched = try apply(advert(id: Array(16..<32)), &t)
        #expect(switched.count == 2)
        var withdraw = advert(id: Array(16..<32))
        withdraw.kind = .withdraw
        guard case .withdrawn? = try apply(withdraw, &t).first else { Issue.record("no withdrawal"); return }
    }

    @Test func silentDevicesAreWithdrawn() throws {
        var t = RemoteTable()
        _ = try apply(advert(), &t)
        #expect(t.sweep(now: 5, lifetime: 12, wallMilliseconds: wallMilliseconds()).isEmpty)
        #expect(t.sweep(now: 13, lifetime: 12, wallMilliseconds: wallMilliseconds()).count == 1)
        #expect(t.entries.isEmpty)
    }
}

@Suite struct ExchangeMessageTests {
    @Test func roundTrips() throws {
        let id = ActivityID()
        for m in [ExchangeMessage.fetch(id), .confirm(id), .payload([1, 2, 3]), .payload([]),
                  .error(code: 4610, message: "late ⏰")] {
            #expect(try ExchangeMessage(m.frame) == m)
        }
    }

    @Test func malformedFramesAreRefused() {
        let bad = [Frame(type: 1, payload: [1, 2]), Frame(type: 4, payload: []), Frame(type: 3, payload: [0, 0]),
                   Frame(type: 3, payload: [0, 0, 0x12, 0x00, 0xFF]), Frame(type: 9, payload: [])]
        for f in bad {
            #expect(throws: HandoffError.self) { try ExchangeMessage(f) }
        }
    }
}

/// The person's settings in the table: what they refuse is withdrawn at
/// once and never reported; undone, it is reported again; FETCH is served
/// only to addresses of devices offered to.
@Suite struct RemoteTableSettingsTests {
    let table = RemoteTableTests()

    @Test func refusedDevicesAndMutedAppsAreWithdrawnAndComeBack() throws {
        var t = RemoteTable()
        let one = table.advert(device: 1), two = table.advert(id: Array(16..<32), device: 2)
        _ = try table.apply(one, &t)
        _ = try table.apply(two, &t)
        var settings = HandoffSettings()
        settings.devices[hex(one.deviceID)] = .init(accept: false)
        let changes = t.apply(settings: settings)
        #expect(changes.count == 1)
        guard case .withdrawn(let gone)? = changes.first else { Issue.record("\(changes)"); return }
        #expect(gone.deviceID == hex(one.deviceID))
        // Its next beacons report nothing; the other device's still do.
        #expect(try table.apply(one, &t).isEmpty)
        // Muted: the app's activities of every device.
        settings.mutedApps = ["com.example.app"]
        #expect(t.apply(settings: settings).count == 1)
        #expect(try table.apply(two, &t).isEmpty)
        // Paused: nothing; back to the defaults: both again.
        let back = t.apply(settings: .defaults)
        #expect(back.count == 2 && back.allSatisfy { if case .available = $0 { true } else { false } })
        #expect(t.apply(settings: HandoffSettings(paused: true)).count == 2)
    }

    @Test func fetchesAreServedByAddress() throws {
        var t = RemoteTable()
        let one = table.advert(device: 1)
        _ = t.apply(one, from: "10.0.0.1", manifest: try manifest(), ownRole: .full, now: 0)
        let two = table.advert(device: 2)
        _ = t.apply(two, from: "10.0.0.2", manifest: try manifest(), ownRole: .full, now: 0)
        #expect(t.serves(host: "10.0.0.1") && t.serves(host: "::ffff:10.0.0.1"))
        var settings = HandoffSettings()
        settings.devices[hex(one.deviceID)] = .init(offer: false)
        _ = t.apply(settings: settings)
        #expect(!t.serves(host: "10.0.0.1") && !t.serves(host: "::FFFF:10.0.0.1"))
        #expect(t.serves(host: "10.0.0.2") && t.serves(host: "10.0.0.3"))
        _ = t.apply(settings: HandoffSettings(paused: true))
        #expect(!t.serves(host: "10.0.0.2"))
        #expect(RemoteTable.comparable("fe80::1%eth0") == "fe80::1")
    }

    /// A device that only solicits (it offers nothing) is recognised by
    /// the address its solicitations came from, and is not listed.
    @Test func solicitorsAreRecognisedWithoutBeingListed() throws {
        var t = RemoteTable()
        let asking = Beacon(kind: .solicit, timestamp: 1, sequence: 1, deviceID: Array(repeating: 3, count: 16),
                            deviceName: "asks", role: .full, channelPort: 9, activity: nil)
        t.heardSolicitation(from: asking, host: "::ffff:10.0.0.3")
        #expect(t.entries.isEmpty)
        var settings = HandoffSettings()
        settings.devices[hex(asking.deviceID)] = .init(offer: false)
        _ = t.apply(settings: settings)
        #expect(!t.serves(host: "10.0.0.3") && t.serves(host: "10.0.0.4"))
    }
}
