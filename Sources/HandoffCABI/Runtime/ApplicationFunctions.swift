// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffModel
import HandoffRuntime

// handoff_application_*: see include/handoff.h, "Applications".

private func app(_ p: OpaquePointer?) throws(HandoffError) -> Application {
    Handle.object(try CArgument.handle(p, "app"))
}

private func activity(_ p: OpaquePointer?) throws(HandoffError) -> UserActivity {
    try ActivityBox.argument(p).activity
}

@c @implementation public func handoff_application_new(_ manifest: OpaquePointer?, _ delegate: UnsafePointer<handoff_application_delegate>?,
                                       _ userData: UnsafeMutableRawPointer?,
                                       _ destroy: UserData.Destroy?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        let m = Handle.object(try CArgument.handle(manifest, "manifest"), as: ManifestBox.self).current
        let owned = UserData(userData, destroy: destroy)
        do throws(HandoffError) {
            let d = try CApplicationDelegate(delegate, owned)
            return Handle.retained(try Application(manifest: m, delegate: d))
        } catch {
            owned.disown()  // a failed call never calls destroy
            throw error
        }
    }
}

@c @implementation public func handoff_application_free(_ app: OpaquePointer?) {
    guard let app else { return }
    // Now, not whenever the last reference goes: the host expects what it
    // advertised withdrawn and its streams flushed when this returns.
    Handle.object(app, as: Application.self).stopContinuity()
    Handle.release(app, as: Application.self)
}

@c @implementation public func handoff_application_get_fd(_ app: OpaquePointer?) -> Int32 {
    guard let app else { return -1 }
    return Handle.object(app, as: Application.self).queue.fd
}

@c @implementation public func handoff_application_next_timeout(_ app: OpaquePointer?) -> Int32 {
    guard let app else { return -1 }
    return Handle.object(app, as: Application.self).queue.nextTimeoutMilliseconds
}

@c @implementation public func handoff_application_dispatch(_ a: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try app(a).queue.dispatch() }
}

@c @implementation public func handoff_application_run(_ a: OpaquePointer?, _ timeoutMilliseconds: Int32) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        guard try app(a).queue.run(timeoutMilliseconds: timeoutMilliseconds) else {
            throw HandoffError(.timedOut, "handoff_application_run: \(timeoutMilliseconds) ms passed without handoff_application_stop")
        }
    }
}

@c @implementation public func handoff_application_stop(_ a: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try app(a).queue.stop() }
}

@c @implementation public func handoff_application_become_current(_ a: OpaquePointer?, _ act: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try app(a).becomeCurrent(try activity(act)) }
}

@c @implementation public func handoff_application_resign_current(_ a: OpaquePointer?, _ act: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try app(a).resignCurrent(try activity(act)) }
}

@c @implementation public func handoff_application_copy_current_activity(_ a: OpaquePointer?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        guard let current = try app(a).currentActivity else {
            throw HandoffError(.notFound, "the application has no current activity")
        }
        return Handle.retained(ActivityBox.handle(for: current))
    }
}

@c @implementation public func handoff_application_continue(_ a: OpaquePointer?, _ activityID: UnsafePointer<CChar>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let application = try app(a)
        let text = try CArgument.string(activityID, "activity_id")
        guard let id = ActivityID(uuidString: text) else {
            throw HandoffError(.invalidValue, "\"\(text)\" is not an activity id; pass handoff_remote_activity_get_id's string")
        }
        try application.continueActivity(id: id)
    }
}

// MARK: Activity life

@c @implementation public func handoff_activity_invalidate(_ act: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try activity(act).invalidate() }
}

@c @implementation public func handoff_activity_is_invalidated(_ act: OpaquePointer?) -> Int32 {
    guard let act else { return 0 }
    return Handle.object(act, as: ActivityBox.self).activity.isInvalidated ? 1 : 0
}

@c @implementation public func handoff_activity_set_delegate(_ act: OpaquePointer?, _ delegate: UnsafePointer<handoff_activity_delegate>?,
                                             _ userData: UnsafeMutableRawPointer?,
                                             _ destroy: UserData.Destroy?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let a = try activity(act)
        guard let delegate else {
            a.retainDelegate(nil)
            return
        }
        let owned = UserData(userData, destroy: destroy)
        do throws(HandoffError) {
            a.retainDelegate(try CActivityDelegate(delegate, owned))
        } catch {
            owned.disown()
            throw error
        }
    }
}

// MARK: Responders and restoration

@c @implementation public func handoff_responder_new(_ a: OpaquePointer?, _ callbacks: UnsafePointer<handoff_responder_callbacks>?,
                                     _ userData: UnsafeMutableRawPointer?,
                                     _ destroy: UserData.Destroy?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        let application = try app(a)
        guard let callbacks else { throw HandoffError(.invalidArgument, "callbacks is NULL") }
        let owned = UserData(userData, destroy: destroy)
        let responder: CResponder
        do throws(HandoffError) {
            responder = try CResponder(callbacks, owned)
        } catch {
            owned.disown()
            throw error
        }
        application.addResponder(responder)
        return Handle.retained(responder)
    }
}

@c @implementation public func handoff_responder_free(_ r: OpaquePointer?) {
    guard let r else { return }
    let responder = Handle.object(r, as: CResponder.self)
    responder.application?.removeResponder(responder)
    responder.close()
    Handle.release(r, as: CResponder.self)
}

@c @implementation public func handoff_responder_set_user_activity(_ r: OpaquePointer?, _ act: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let responder = Handle.object(try CArgument.handle(r, "responder"), as: CResponder.self)
        responder.userActivity = act.map { Handle.object($0, as: ActivityBox.self).activity }
    }
}

@c @implementation public func handoff_responder_copy_user_activity(_ r: OpaquePointer?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        let responder = Handle.object(try CArgument.handle(r, "responder"), as: CResponder.self)
        guard let a = responder.userActivity else {
            throw HandoffError(.notFound, "the responder has no user activity")
        }
        return Handle.retained(ActivityBox.handle(for: a))
    }
}

@c @implementation public func handoff_restoration_handler_restore(_ h: OpaquePointer?,
                                                   _ responders: UnsafePointer<OpaquePointer?>?,
                                                   _ count: Int) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let handler = Handle.object(try CArgument.handle(h, "handler"), as: RestorationHandler.self)
        guard count >= 0 else { throw HandoffError(.invalidArgument, "count is out of range") }
        var list: [Responder] = []
        if count > 0 {
            guard let responders else { throw HandoffError(.invalidArgument, "responders is NULL but count is \(count)") }
            for i in 0..<count {
                list.append(Handle.object(try CArgument.handle(responders[i], "responders[\(i)]"), as: CResponder.self))
            }
        }
        try handler.restore(list)
    }
}

@c @implementation public func handoff_restoration_handler_free(_ h: OpaquePointer?) {
    Handle.release(h, as: RestorationHandler.self)
}

@c @implementation public func handoff_application_get_activation_token(_ app: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let app, let token = Handle.object(app, as: Application.self).continuingActivationToken else { return nil }
    return LentText.lend(token)
}

// MARK: Saved activities (the history, docs/history.md)

/// The host's completion and its context, passed back once on the main thread.
private struct CompletionCall: @unchecked Sendable {
    // @unchecked: the context is the host's; the library only passes it back.
    typealias Callback = @convention(c) (UnsafeMutableRawPointer?, Int32) -> Void
    let callback: Callback?
    let context: UnsafeMutableRawPointer?

    func call(_ result: Result<Void, HandoffError>) {
        guard let callback else { return }
        switch result {
        case .success: callback(context, 0)
        case .failure(let error):
            LastError.set(error)
            callback(context, error.code.rawValue)
        }
    }
}

@c @implementation public func handoff_application_delete_saved_activities(
    _ a: OpaquePointer?, _ ids: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int,
    _ done: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Void)?, _ context: UnsafeMutableRawPointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let application = try app(a)
        guard count <= SavedActivitySelection.maxIdentifiers else {
            throw HandoffError(.invalidArgument, "count is \(count); one deletion takes at most \(SavedActivitySelection.maxIdentifiers) identifiers")
        }
        let call = CompletionCall(callback: done, context: context)
        try application.deleteSavedActivities(.identifiers(try CArgument.strings(ids, count, "ids"))) { call.call($0) }
    }
}

@c @implementation public func handoff_application_delete_all_saved_activities(
    _ a: OpaquePointer?, _ done: (@convention(c) (UnsafeMutableRawPointer?, Int32) -> Void)?,
    _ context: UnsafeMutableRawPointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let call = CompletionCall(callback: done, context: context)
        try app(a).deleteSavedActivities(.all) { call.call($0) }
    }
}
