// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffModel
@testable import HandoffRuntime
import Testing

/// The activation token of a continuation chosen outside the app (the
/// agent's CONTINUE, docs/agent.md §3) is readable during that
/// continuation's callbacks, and at no other time.
@Suite struct ActivationTokenTests {
    final class TokenDelegate: ApplicationDelegate, @unchecked Sendable {
        var seen: [String] = []
        func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
            seen.append("will:\(application.continuingActivationToken ?? "-")")
            return false
        }
        func application(_ application: Application, continue userActivity: UserActivity,
                         restorationHandler: RestorationHandler) -> Bool { false }
        func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                         error: HandoffError) {
            seen.append("fail:\(application.continuingActivationToken ?? "-")")
        }
    }

    @Test func theTokenIsThereDuringTheCallbacksOnly() throws {
        let delegate = TokenDelegate()
        let app = try Application(manifest: try Manifest(bundleIdentifier: "com.example.a", teamIdentifier: "T1"),
                                  delegate: delegate)
        let remote = RemoteActivity(deviceID: "x", deviceName: "x", activityID: ActivityID(), activityType: "com.example.a.b")
        app.continueChosen(remote, activationToken: "tok-1")
        #expect(app.continuingActivationToken == nil)
        try app.dispatch()
        #expect(delegate.seen == ["will:tok-1", "fail:tok-1"])
        #expect(app.continuingActivationToken == nil)
        // Used up: the same activity continued from inside the app has none.
        app.continueActivity(remote)
        try app.dispatch()
        #expect(delegate.seen == ["will:tok-1", "fail:tok-1", "will:-", "fail:-"])
    }

    @Test func theContinueCallbackHasItToo() throws {
        let p = try Pair()
        try p.sender.becomeCurrent(try shape())
        let offered = try #require(p.senderService.offered)
        var during: String?
        p.receiverDelegate.onContinue = { _, handler in
            during = p.receiver.continuingActivationToken
            try? handler.restore([])
            return true
        }
        p.receiver.continueChosen(offered, activationToken: "xdg-activation-token")
        try p.settle()
        #expect(p.log.count("continue:") == 1)
        #expect(during == "xdg-activation-token")
        #expect(p.receiver.continuingActivationToken == nil)
    }

    @Test func atMostMaxActivationTokensAreKept() throws {
        let delegate = TokenDelegate()
        let app = try Application(manifest: try Manifest(bundleIdentifier: "com.example.a", teamIdentifier: "T1"),
                                  delegate: delegate)
        let remotes = (0..<(Application.maxActivationTokens + 3)).map { _ in
            RemoteActivity(deviceID: "x", deviceName: "x", activityID: ActivityID(), activityType: "com.example.a.b")
        }
        for (n, remote) in remotes.enumerated() { app.continueChosen(remote, activationToken: "t\(n)") }
        #expect(app.state.withLock { $0.activationTokens.count } == Application.maxActivationTokens)
        try app.dispatch()
        #expect(app.state.withLock { $0.activationTokens.isEmpty })
    }
}
