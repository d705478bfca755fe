// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import Testing
import HandoffBase
import HandoffModel
import HandoffTestSupport
@testable import HandoffContinuity
@testable import HandoffRuntime

/// The engine's stop ends what a continuation waits on for a document: a
/// transfer that stalls and a wait for a sync (both may last minutes by
/// themselves). The fetching thread is woken, the continuation fails
/// saying why, no copy is left and no thread stays behind. The bounds are
/// generous: far below what the transfer or the wait would take alone.
@Suite(.serialized) struct DocumentStopTests {
    typealias Hostile = DocumentHostileTests

    final class Receiver {
        let engine: ContinuityEngine
        let app: Application
        let delegate = EngineDelegate()
        let fake: Hostile.FakeSender
        let progress = Locked<[UInt64]>([])

        init(_ homes: DocumentHandoffTests.Homes, activity: UserActivity, payload: [UInt8], serve: @escaping Hostile.Serve,
             settings: DocumentSettings) throws {
            fake = try Hostile.FakeSender(payload: payload, serve: serve)
            // A reply time of 65 s: a stalled transfer would hold the thread that long.
            engine = try loopbackEngine(fetchTimeout: 60, name: "B", documentEnvironment: ["HOME": homes.b])
            var applied = engine.settings
            applied.documents = settings
            engine.apply(applied)
            let progress = self.progress
            engine.onDocumentProgress { report in progress.withLock { $0.append(report.received) } }
            app = try Application(manifest: try manifest(), delegate: delegate, continuity: engine)
            let beacon = Beacon(kind: .advert, timestamp: wallMilliseconds(), sequence: wallMilliseconds(),
                                deviceID: Crypto.randomBytes(16), deviceName: "fake", role: .full, channelPort: fake.server.port,
                                activity: BeaconActivity(activityID: activity.activityID.bytes, activityType: activity.activityType,
                                                         title: nil, teamIdentifier: "TEAM1", bundleIdentifier: "com.example.app",
                                                         webpageURL: nil, expiration: nil, supportsContinuationStreams: false))
            try sendUDP(try BeaconCodec.seal(beacon, key: testAccount.derived.beaconKey), to: engine.beaconPort)
            #expect(try pump([app]) { self.delegate.events.contains("available") })
            try app.continueActivity(id: activity.activityID)
        }

        var failed: Bool { delegate.events.contains { $0.hasPrefix("didFail") } }

        /// Stops the engine once `ready` holds, then expects the continuation
        /// to have failed saying the handoff stopped, and every thread gone.
        func stop(when ready: @escaping () -> Bool) throws {
            #expect(try pump([app], seconds: 30) { ready() || self.failed }, "\(delegate.events)")
            #expect(!failed, "failed before the stop: \(delegate.lastError?.message ?? "")")
            engine.detach()
            #expect(engine.threads.alive == 0, "a thread of the engine is still running after its stop")
            #expect(try pump([app], seconds: 10) { self.failed }, "\(delegate.events)")
            #expect(delegate.lastError?.message.contains("stopped") == true, "\(delegate.lastError?.message ?? "")")
        }
    }

    @Test func stopEndsAStalledTransfer() throws {
        let homes = try DocumentHandoffTests.Homes()
        _ = system("mkdir -p '\(homes.b)/notes'")
        let before = Hostile.tree(homes.root)
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let payload = try Hostile.payload(activity, documents: .dictionary([Hostile.senderURL: Hostile.entry()]))
        let stall: Hostile.Serve = { connection in
            try? connection.send(ExchangeMessage.documentAccepted(size: UInt64(Hostile.content.count)).frame, timeout: 5)
            try? connection.send(Frame(type: StreamFrame.data, payload: Array(Hostile.content.prefix(3))), timeout: 5)
            _ = try? connection.receive(timeout: 90)  // returns when the receiver closes
        }
        let receiver = try Receiver(homes, activity: activity, payload: payload, serve: stall, settings: DocumentSettings())
        // Three bytes arrived: the copy is being written.
        try receiver.stop { receiver.progress.withLock { $0.contains(0) } && receiver.fake.openCount == 1 }
        Hostile.expectUntouched(before, homes)
    }

    @Test func stopEndsAWaitForASync() throws {
        let homes = try DocumentHandoffTests.Homes()
        try homes.write(homes.b + "/.config/syncthing/config.xml",
                        DocumentPlacesTests.syncthingConfig([("abcd-1234", homes.b + "/Sync")]))
        _ = system("mkdir -p '\(homes.b)/Sync/notes'")
        let before = Hostile.tree(homes.root)
        var settings = DocumentSettings()
        settings.syncWait = 300
        let activity = try UserActivity(activityType: "com.example.app.edit")
        let payload = try Hostile.payload(activity, documents: .dictionary([
            Hostile.senderURL: Hostile.entry(place: "syncthing", root: "abcd-1234"),
        ]))
        let receiver = try Receiver(homes, activity: activity, payload: payload, serve: Hostile.refuseToServe, settings: settings)
        // The wait began (reported as 0 bytes before any transfer).
        try receiver.stop { receiver.progress.withLock { $0 == [0] } }
        #expect(receiver.fake.openCount == 0)
        Hostile.expectUntouched(before, homes)
    }
}
