// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffModel
import HandoffRuntime

// handoff_document_*, handoff_url_*_accessing: see include/handoff.h,
// "Documents". The logic is HandoffRuntime's `Document` and
// `SecurityScopedAccess`.

/// The object behind a `handoff_document *`: the document, and the box of
/// its activity, kept so the borrowed `handoff_activity *` stays one
/// pointer for the document's life.
final class DocumentBox {
    let document: Document
    let activity: ActivityBox

    init(_ document: Document) {
        self.document = document
        activity = ActivityBox.handle(for: document.activity)
    }

    static func argument(_ p: OpaquePointer?) throws(HandoffError) -> DocumentBox {
        Handle.object(try CArgument.handle(p, "document"))
    }
}

@c @implementation public func handoff_document_new(_ app: OpaquePointer?, _ type: UnsafePointer<CChar>?,
                                                    _ path: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        let application: Application = Handle.object(try CArgument.handle(app, "app"))
        let document = try Document(application: application, activityType: try CArgument.string(type, "activity_type"),
                                    path: try CArgument.string(path, "path"))
        return Handle.retained(DocumentBox(document))
    }
}

@c @implementation public func handoff_document_edited(_ doc: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try DocumentBox.argument(doc).document.edited() }
}

@c @implementation public func handoff_document_saved(_ doc: OpaquePointer?) -> Int32 {
    Thunk.status { () throws(HandoffError) in try DocumentBox.argument(doc).document.saved() }
}

@c @implementation public func handoff_document_activity(_ doc: OpaquePointer?) -> OpaquePointer? {
    guard let doc else { return nil }
    return Handle.unretained(Handle.object(doc, as: DocumentBox.self).activity)
}

@c @implementation public func handoff_document_free(_ doc: OpaquePointer?) {
    guard let doc else { return }
    Handle.object(doc, as: DocumentBox.self).document.close()
    Handle.release(doc, as: DocumentBox.self)
}

@c @implementation public func handoff_url_start_accessing(_ app: OpaquePointer?, _ url: UnsafePointer<CChar>?,
                                                           _ path: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let application: Application = Handle.object(try CArgument.handle(app, "app"))
        let text = try CArgument.string(url, "url")
        let out = try CArgument.out(path, "path")
        let local = try SecurityScopedAccess.start(text, service: application.continuityService)
        let p = CMemory.allocate(local.count + 1).assumingMemoryBound(to: UInt8.self)
        p.initialize(from: local, count: local.count)
        p[local.count] = 0
        out.pointee = UnsafeMutableRawPointer(p).assumingMemoryBound(to: CChar.self)
    }
}

@c @implementation public func handoff_url_stop_accessing(_ app: OpaquePointer?, _ url: UnsafePointer<CChar>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        let application: Application = Handle.object(try CArgument.handle(app, "app"))
        try SecurityScopedAccess.stop(try CArgument.string(url, "url"), service: application.continuityService)
    }
}
