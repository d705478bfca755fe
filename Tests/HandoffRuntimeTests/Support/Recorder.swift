// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffBase
import HandoffModel
@testable import HandoffRuntime

/// Records every callback, in order, as short strings: "willContinue:<type>",
/// "continue:<type>", "didFail:<type>:<code>", "didUpdate:<title>",
/// "update:<name>", "restore:<name>", "willSave", "wasContinued".
final class Log: Sendable {
    private let entries = Locked<[String]>([])
    func add(_ s: String) { entries.withLock { $0.append(s) } }
    var all: [String] { entries.withLock { $0 } }
    func count(_ prefix: String) -> Int { all.filter { $0.hasPrefix(prefix) }.count }
    func clear() { entries.withLock { $0.removeAll() } }
}

final class RecordingDelegate: ApplicationDelegate, @unchecked Sendable {
    let log: Log
    /// Decides what `continue` does; default: restore onto `restoreInto` at once.
    var onContinue: ((UserActivity, RestorationHandler) -> Bool)?
    var restoreInto: [Responder] = []
    var lastError: HandoffError?
    var continued: UserActivity?

    init(log: Log) { self.log = log }

    func application(_ application: Application, willContinueUserActivityWithType activityType: String) -> Bool {
        log.add("willContinue:\(activityType)")
        return true
    }

    func application(_ application: Application, continue userActivity: UserActivity, restorationHandler: RestorationHandler) -> Bool {
        log.add("continue:\(userActivity.activityType)")
        continued = userActivity
        if let onContinue { return onContinue(userActivity, restorationHandler) }
        try? restorationHandler.restore(restoreInto)
        return true
    }

    func application(_ application: Application, didFailToContinueUserActivityWithType activityType: String, error: HandoffError) {
        log.add("didFail:\(activityType):\(error.code.rawValue)")
        lastError = error
    }

    func application(_ application: Application, didUpdate userActivity: UserActivity) {
        log.add("didUpdate:\(userActivity.title ?? "")")
    }
}

final class RecordingResponder: Responder, @unchecked Sendable {
    let name: String
    let log: Log
    var onUpdate: ((UserActivity) -> Void)?
    var restored: UserInfo?

    init(_ name: String, log: Log) {
        self.name = name
        self.log = log
    }

    override func updateUserActivityState(_ activity: UserActivity) {
        log.add("update:\(name)")
        onUpdate?(activity)
    }

    override func restoreUserActivityState(_ activity: UserActivity) {
        log.add("restore:\(name)")
        restored = activity.userInfo
    }
}

final class RecordingActivityDelegate: UserActivityDelegate, @unchecked Sendable {
    let log: Log
    var onWillSave: ((UserActivity) -> Void)?
    init(log: Log) { self.log = log }
    func userActivityWillSave(_ activity: UserActivity) {
        log.add("willSave")
        onWillSave?(activity)
    }
    func userActivityWasContinued(_ activity: UserActivity) { log.add("wasContinued") }
    func userActivity(_ activity: UserActivity, didFailToHandOffWith error: HandoffError) {
        log.add("didFailToHandOff:\(error.code.rawValue)")
    }
}

/// Two applications joined by loopback continuity, both on the test's thread.
struct Pair {
    let log = Log()
    let network = LoopbackNetwork()
    let senderService: LoopbackContinuity
    let receiverService: LoopbackContinuity
    let senderDelegate: RecordingDelegate
    let receiverDelegate: RecordingDelegate
    let sender: Application
    let receiver: Application

    init(types: [String] = ["com.example.shapes.create-shape"]) throws {
        senderService = network.service("sender")
        receiverService = network.service("receiver")
        senderDelegate = RecordingDelegate(log: log)
        receiverDelegate = RecordingDelegate(log: log)
        let manifest = try Manifest(bundleIdentifier: "com.example.shapes", teamIdentifier: "TEAM1", activityTypes: types)
        sender = try Application(manifest: manifest, delegate: senderDelegate, continuity: senderService)
        receiver = try Application(manifest: manifest, delegate: receiverDelegate, continuity: receiverService)
    }

    /// Dispatches both applications until nothing is left to run.
    func settle() throws {
        for _ in 0..<100 {
            let ran = try sender.dispatch() + receiver.dispatch()
            if ran == 0 { return }
        }
    }
}

func shape(_ type: String = "com.example.shapes.create-shape", title: String = "Circle") throws -> UserActivity {
    let a = try UserActivity(activityType: type)
    a.title = title
    try a.setUserInfo(["shape-type": .string("circle"), "activity-version": .integer(1)])
    a.requiredUserInfoKeys = ["shape-type"]
    return a
}

#if canImport(Glibc)
import Glibc
#endif

/// True when `fd` is readable right now.
func isReadable(_ fd: Int32) -> Bool {
    var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
    return poll(&p, 1, 0) == 1
}

private final class ThreadBody {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// Runs `body` on a new thread and waits for it.
func onOtherThread<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T {
    let box = ResultBox<T>()
    var thread = pthread_t()
    let context = Unmanaged.passRetained(ThreadBody { box.value = body() }).toOpaque()
    pthread_create(&thread, nil, { raw in
        Unmanaged<ThreadBody>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
    }, context)
    pthread_join(thread, nil)
    return box.value!
}
