// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The activity of one open document, as NSDocument keeps it: its file URL
/// under `NSUserActivityDocumentURLKey`, its file's name as the title,
/// made current when opened; `edited()` asks for a save before the next
/// fetch, `saved()` clears it.
///
/// It follows the file (`FollowedFile`) through renames and saves by
/// replacement without a thread: the inotify fd is watched by the
/// application's `HostQueue`, so every change of URL and title happens
/// inside `dispatch`, on the application's main thread. A file deleted with
/// nothing in its place stops being offered (resigned current) until a
/// file is back at its path (seen at the next event, or at `saved()`).
public final class Document: @unchecked Sendable {
    // @unchecked: the file and flags are behind `state`.
    public let activity: UserActivity
    private weak var application: Application?
    private let queue: HostQueue
    private let state: Locked<State>
    private let watch: HostQueue.WatchID

    private struct State: @unchecked Sendable {
        var file: FollowedFile?
        /// The activity was resigned because its file went.
        var resignedForDeletion = false
    }

    /// Opens the document at `path` for `application`: a new activity of
    /// `activityType`, made current.
    /// - Throws: `.invalidValue` for a bad type or a path that is not a
    ///   regular file, `.notFound` when nothing is at `path`, `.io` when it
    ///   cannot be watched.
    public init(application: Application, activityType: String, path: String) throws(HandoffError) {
        guard !path.isEmpty else { throw HandoffError(.invalidValue, "the document's path is empty") }
        let activity = try UserActivity(activityType: activityType)
        let file = try FollowedFile(path: path)
        self.activity = activity
        self.application = application
        queue = application.queue
        state = Locked(State(file: file))
        let box = WeakDocument()
        watch = try queue.watch(file.fd) { box.document?.follow() }
        box.document = self
        describe(file.path)
        try application.becomeCurrent(activity)
    }

    deinit { close() }

    /// The file's path now.
    public var path: [UInt8]? { state.withLock { $0.file?.path } }

    /// Marks the document edited: the activity needs a save (its
    /// responders and delegate run before the next fetch). Any thread.
    public func edited() { activity.needsSave = true }

    /// Marks it saved: no save pending, and the file looked at again (an
    /// app that saved by replacement sees its URL follow before this
    /// returns when on the main thread, else at the next dispatch).
    public func saved() {
        activity.needsSave = false
        if queue.isOwnerThread { follow() } else { queue.post { [weak self] in self?.follow() } }
    }

    /// Stops following the file and invalidates the activity. Idempotent.
    public func close() {
        queue.unwatch(watch)
        let file = state.withLock { s in defer { s.file = nil }; return s.file }
        guard file != nil else { return }
        activity.invalidate()
    }

    /// What the watch found, applied: URL and title, or current no more.
    func follow() {
        let (change, path, resumed): (FollowedFile.Change, [UInt8], Bool) = state.withLock { s in
            guard let file = s.file else { return (.none, [], false) }
            let change = file.update()
            let resumed = s.resignedForDeletion && (change == .replaced || change == .moved)
            if resumed { s.resignedForDeletion = false }
            if change == .gone { s.resignedForDeletion = true }
            return (change, file.path, resumed)
        }
        switch change {
        case .none:
            return
        case .moved, .replaced, .written:
            // Written in place: the same URL again, so an offer encoded
            // before the write is withdrawn and the next fetch describes
            // the file as it is now.
            describe(path)
            if resumed, !activity.isInvalidated { try? application?.becomeCurrent(activity) }
        case .gone:
            application?.resignCurrent(activity)
        }
    }

    private func describe(_ path: [UInt8]) {
        let name = path.split(separator: UInt8(ascii: "/")).last.map { String(decoding: $0, as: UTF8.self) }
        if activity.title != name { activity.title = name }
        try? activity.addUserInfoEntries([FileURL.documentURLKey: .url(FileURL.url(forPath: path))])
    }
}

/// The watch's handler holds the document weakly: the queue must not keep
/// a document its host released.
private final class WeakDocument: @unchecked Sendable {
    weak var document: Document?
}
