// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBridges
import HandoffJSON
import HandoffModel
import HandoffRuntime
#if canImport(Glibc)
import Glibc
#endif

/// `handoff session`'s app (docs/cli.md "handoff session"): the lines a
/// script writes become its current activity, and what Handoff tells an
/// app (what other devices offer, a continuation, its own activity
/// continued elsewhere) becomes lines it reads. An app like any other:
/// the runtime's `Application`, in agent or embedded mode. Main thread.
final class SessionHost: ApplicationDelegate, UserActivityDelegate {
    let manifest: Manifest
    let output: SessionOutput
    weak var application: Application?
    private let input: Int32
    private weak var loop: MainLoop?
    private var decoder = SessionLineDecoder()
    /// Lines read so far: an error names the line it is about.
    private var lineNumber = 0
    private var current: UserActivity?
    /// The last `offered` written, as its text: only changes are written.
    private var lastOffered: String?

    init(manifest: Manifest, output: SessionOutput, input: Int32 = 0) {
        self.manifest = manifest
        self.output = output
        self.input = input
    }

    /// Reads lines until the end of input, a signal or a reader gone.
    func run(_ loop: MainLoop) -> MainLoop.End {
        self.loop = loop
        loop.watch(input) { [unowned self] in self.readInput() }
        let end = loop.run(timeout: nil)
        withdraw(quietly: true)
        return end
    }

    // MARK: Lines in

    private func readInput() {
        var buffer = [UInt8](repeating: 0, count: 16 << 10)
        let n = read(input, &buffer, buffer.count)
        if n < 0 && (errno == EINTR || errno == EAGAIN) { return }
        if n > 0 {
            for event in decoder.feed(buffer[0 ..< n]) { handle(event) }
        } else {
            // The end of input ends the session (what it offered is withdrawn).
            if let last = decoder.finish() { handle(last) }
            loop?.unwatch(input)
            loop?.stop()
        }
        if output.isBroken { loop?.stop() }
    }

    private func handle(_ event: SessionLineDecoder.Event) {
        lineNumber += 1
        switch event {
        case .tooLong(let length):
            output.error(HandoffError(.malformedData, "a line of \(length) bytes is over the \(SessionLineDecoder.maxLine)-byte limit: ignored"),
                         line: lineNumber)
        case .line(let bytes):
            // Blank lines are allowed (a script's spacing).
            guard bytes.contains(where: { $0 != 0x20 && $0 != 0x09 }) else { return }
            do {
                switch try SessionRequest.decode(bytes) {
                case .publish(let publication): try publish(publication)
                case .withdraw: withdraw(quietly: false)
                case .continue(let id):
                    guard let application else { return }
                    try application.continueActivity(id: id)
                }
            } catch {
                output.error(error, line: lineNumber)
            }
        }
    }

    /// The whole state of the current activity: the same activity updated
    /// while the type stays, a new one when it changes. Either way it is
    /// made current again (the person used this app last).
    private func publish(_ p: SessionPublication) throws(HandoffError) {
        guard let application else { return }
        let type: String
        if let given = p.type { type = given } else { type = try onlyType() }
        guard manifest.declares(type) else {
            throw HandoffError(.invalidValue, "the session declares \(manifest.activityTypes.joined(separator: ", ")), not \(type): "
                               + "start it with --type \(type)")
        }
        try UserInfoRules.check(p.userInfo)
        let size = UserInfoCoding.encode(p.userInfo).count
        guard size <= HandoffBudget.userInfoBytes else {
            throw HandoffError(.userInfoTooLarge, "the userInfo is \(size) bytes encoded, over the \(HandoffBudget.userInfoBytes)-byte "
                               + "budget: not published (a device that continued it would get error 4611)")
        }
        let activity: UserActivity
        if let current, !current.isInvalidated, current.activityType == type {
            activity = current
        } else {
            activity = try UserActivity(activityType: type)
            activity.retainDelegate(self)
        }
        // The page first: the one setter that can still refuse, before
        // anything of the current activity has changed.
        if activity.webpageURL != p.webpageURL { try activity.setWebpageURL(p.webpageURL) }
        if activity.userInfo != p.userInfo { try activity.setUserInfo(p.userInfo) }
        if activity.title != p.title { activity.title = p.title }
        if let current, current !== activity {
            application.resignCurrent(current)
            current.invalidate()
        }
        try application.becomeCurrent(activity)
        current = activity
        output.send("published", ["id": .string(activity.activityID.uuidString), "type": .string(type),
                                  "title": .string(activity.title), "user_info_bytes": .int(Int64(size))])
    }

    private func onlyType() throws(HandoffError) -> String {
        guard manifest.activityTypes.count == 1 else {
            throw HandoffError(.invalidValue, "\"publish\" needs \"type\": the session declares \(manifest.activityTypes.joined(separator: ", "))")
        }
        return manifest.activityTypes[0]
    }

    /// Withdraws the current activity; `quietly` at the session's end.
    private func withdraw(quietly: Bool) {
        let id = current?.activityID
        if let current {
            application?.resignCurrent(current)
            current.invalidate()
            self.current = nil
        }
        if !quietly { output.send("withdrawn", ["id": .string(id?.uuidString)]) }
    }

    // MARK: Lines out: this app's activity

    func userActivityWasContinued(_ activity: UserActivity) {
        output.send("continued", ["id": .string(activity.activityID.uuidString)])
    }

    // MARK: Lines out: other devices' activities

    func application(_ application: Application, continue userActivity: UserActivity,
                     restorationHandler: RestorationHandler) -> Bool {
        let remote = application.availableActivities.first { $0.activityID == userActivity.activityID }
        output.send("continue", SessionOutput.continued(userActivity, from: remote))
        return true
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String,
                     error: HandoffError) {
        output.send("failed", ["type": .string(activityType), "error": Output.errorObject(error)])
    }

    func application(_ application: Application, remoteActivityBecameAvailable remote: RemoteActivity) { offeredChanged(application) }
    func application(_ application: Application, remoteActivityWasUpdated remote: RemoteActivity) { offeredChanged(application) }
    func application(_ application: Application, remoteActivityWasWithdrawn remote: RemoteActivity) { offeredChanged(application) }

    /// What this app could continue now, oldest first (web-only ones are
    /// for a browser, not for it).
    private func offeredChanged(_ application: Application) {
        let list = JSON.array(application.availableActivities.filter { !$0.isWebOnly }.map(SessionOutput.remote))
        let text = list.text
        guard text != lastOffered else { return }
        lastOffered = text
        output.send("offered", list)
    }
}
