// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
@testable import HandoffContinuity
import HandoffModel
import HandoffRuntime
import Testing

/// What each notification says and shows (issue 34): an icon on every
/// one, the sending app's name instead of a raw type, and a failed
/// pairing told as honestly as the wire allows.
struct NotificationWordsTests {
    static let remote = RemoteActivity(deviceID: "a", deviceName: "Desk", activityID: ActivityID(),
                                       activityType: "com.example.shapes.create-shape", title: "Circle")

    @Test func everyOfferHasAnIcon() {
        #expect(NotificationContent.offer(Self.remote, ContinueTarget(desktopEntry: "x", appName: "Shapes", icon: "shapes")).icon == "shapes")
        #expect(NotificationContent.offer(Self.remote, ContinueTarget(desktopEntry: "x", appName: "Shapes")).icon == "handoff")
        #expect(NotificationContent.offer(Self.remote, .webPage).icon == "web-browser")
        #expect(NotificationContent.noApp(Self.remote, installable: false).icon == "handoff")
        #expect(AgentNotifications.notSetUpContent().icon == "handoff")
    }

    @Test func theNoAppNoticeNamesTheSendingApp() {
        var remote = Self.remote
        remote.bundleIdentifier = "com.example.shapes"
        let caps: Set<String> = ["body"]
        #expect(NotificationContent.noApp(remote, installable: false, appName: "Formen").rendered(capabilities: caps).body
                == "No app here continues Formen · from Desk")
        #expect(NotificationContent.noApp(remote, installable: false).rendered(capabilities: caps).body
                == "No app here continues Shapes · from Desk")
        remote.bundleIdentifier = ""
        #expect(NotificationContent.noApp(remote, installable: false).rendered(capabilities: caps).body
                == "No app here continues Create shape · from Desk")
        #expect(NotificationContent.readableName("INSendMessageIntent") == "INSendMessageIntent")
        #expect(NotificationContent.readableName("org.gnome.text_editor") == "Text editor")
    }

    /// REJECT is empty on the wire: the other side's "no" and its timeout
    /// are one message, and the words claim neither.
    @Test func aFailedPairingIsToldWhatThisSideKnows() {
        #expect(PairingEnd(PairingFailure.peerRejected) == .endedThere)
        #expect(PairingEnd(PairingFailure.rejectedHere) == .refusedHere)
        #expect(PairingEnd(PairingFailure.codeMismatch) == .codeMismatch)
        #expect(PairingEnd(HandoffError(.timedOut, "x")) == .timedOut)
        #expect(PairingEnd(HandoffError(.io, "connection reset")) == .other)
        let there = WaitingNotifications.whyNotPaired(PairingFailure.peerRejected, compared: true)
        #expect(there.hasPrefix("Your other device ended the pairing") && there.contains("not answered in time"))
        #expect(!there.contains("codes differed"))
        #expect(WaitingNotifications.whyNotPaired(PairingFailure.rejectedHere, compared: true).hasPrefix("You said the codes differ"))
        #expect(WaitingNotifications.whyNotPaired(HandoffError(.timedOut, "x"), compared: false).hasPrefix("No device of yours answered"))
    }
}
