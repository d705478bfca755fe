// SPDX-License-Identifier: MIT OR Apache-2.0
import CHandoffHeader
import HandoffModel

// handoff_manifest_*: see include/handoff.h, "Manifests".

private func box(_ p: OpaquePointer?) throws(HandoffError) -> ManifestBox {
    Handle.object(try CArgument.handle(p, "manifest"))
}

@c @implementation public func handoff_manifest_new(_ bundle: UnsafePointer<CChar>?, _ team: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        let m = try Manifest(bundleIdentifier: try CArgument.string(bundle, "bundle_identifier"),
                             teamIdentifier: try CArgument.string(team, "team_identifier"))
        return Handle.retained(ManifestBox(m))
    }
}

@c @implementation public func handoff_manifest_load(_ path: UnsafePointer<CChar>?) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        Handle.retained(ManifestBox(try Manifest(infoPlistAt: try CArgument.string(path, "path"))))
    }
}

@c @implementation public func handoff_manifest_load_data(_ bytes: UnsafeRawPointer?, _ length: Int) -> OpaquePointer? {
    Thunk.value { () throws(HandoffError) in
        guard bytes != nil else { throw HandoffError(.invalidArgument, "bytes is NULL") }
        return Handle.retained(ManifestBox(try Manifest(infoPlist: try CArgument.bytes(bytes, length, "bytes"))))
    }
}

@c @implementation public func handoff_manifest_free(_ manifest: OpaquePointer?) {
    Handle.release(manifest, as: ManifestBox.self)
}

@c @implementation public func handoff_manifest_declare_activity_type(_ manifest: OpaquePointer?, _ type: UnsafePointer<CChar>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        try box(manifest).declare(try CArgument.string(type, "activity_type"))
    }
}

@c @implementation public func handoff_manifest_declares(_ manifest: OpaquePointer?, _ type: UnsafePointer<CChar>?) -> Int32 {
    guard let manifest, let type, let t = String(validatingCString: type) else { return 0 }
    return Handle.object(manifest, as: ManifestBox.self).current.declares(t) ? 1 : 0
}

@c @implementation public func handoff_manifest_get_bundle_identifier(_ manifest: OpaquePointer?) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(manifest)
        return b.bundleIdentifier.pointer(for: b.current.bundleIdentifier)
    }
}

@c @implementation public func handoff_manifest_get_team_identifier(_ manifest: OpaquePointer?) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in
        let b = try box(manifest)
        return b.teamIdentifier.pointer(for: b.current.teamIdentifier)
    }
}

@c @implementation public func handoff_manifest_activity_type_count(_ manifest: OpaquePointer?) -> Int {
    guard let manifest else { return 0 }
    return Handle.object(manifest, as: ManifestBox.self).current.activityTypes.count
}

@c @implementation public func handoff_manifest_activity_type_at(_ manifest: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in try box(manifest).typePointer(at: index) }
}

@c @implementation public func handoff_manifest_warning_count(_ manifest: OpaquePointer?) -> Int {
    guard let manifest else { return 0 }
    return Handle.object(manifest, as: ManifestBox.self).current.warnings.count
}

@c @implementation public func handoff_manifest_warning_at(_ manifest: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in try box(manifest).warningPointer(at: index) }
}

@c @implementation public func handoff_manifest_declare_web_domain(_ manifest: OpaquePointer?, _ domain: UnsafePointer<CChar>?) -> Int32 {
    Thunk.status { () throws(HandoffError) in
        try box(manifest).declare(webDomain: try CArgument.string(domain, "domain"))
    }
}

@c @implementation public func handoff_manifest_web_domain_count(_ manifest: OpaquePointer?) -> Int {
    guard let manifest else { return 0 }
    return Handle.object(manifest, as: ManifestBox.self).current.webDomains.count
}

@c @implementation public func handoff_manifest_web_domain_at(_ manifest: OpaquePointer?, _ index: Int) -> UnsafePointer<CChar>? {
    Thunk.value { () throws(HandoffError) in try box(manifest).webDomainPointer(at: index) }
}
