// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffBase
import HandoffModel

/// The object behind a `handoff_manifest *`: the manifest (declared types
/// may grow; load warnings never change) and the C strings borrowed from it.
final class ManifestBox: @unchecked Sendable {
    // @unchecked: the mutable manifest and the type list slot sit behind locks.
    private let manifest: Locked<Manifest>
    let bundleIdentifier = CStringSlot()
    let teamIdentifier = CStringSlot()
    private let types = Locked(CStringListSlot())
    private let warnings = Locked(CStringListSlot())
    private let domains = Locked(CStringListSlot())

    init(_ manifest: Manifest) {
        self.manifest = Locked(manifest)
        _ = bundleIdentifier.pointer(for: manifest.bundleIdentifier)
        _ = teamIdentifier.pointer(for: manifest.teamIdentifier)
    }

    var current: Manifest { manifest.withLock { $0 } }

    func declare(_ type: String) throws(HandoffError) {
        try manifest.withLock { (m) throws(HandoffError) in try m.declare(type) }
    }

    func declare(webDomain: String) throws(HandoffError) {
        try manifest.withLock { (m) throws(HandoffError) in try m.declare(webDomain: webDomain) }
    }

    func webDomainPointer(at index: Int) -> UnsafePointer<CChar>? {
        let list = current.webDomains.map(\.description)
        return domains.withLock { $0.pointer(for: list, at: index) }
    }

    func typePointer(at index: Int) -> UnsafePointer<CChar>? {
        let list = current.activityTypes
        return types.withLock { $0.pointer(for: list, at: index) }
    }

    func warningPointer(at index: Int) -> UnsafePointer<CChar>? {
        let list = current.warnings
        return warnings.withLock { $0.pointer(for: list, at: index) }
    }
}
