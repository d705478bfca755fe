// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

/// The document portal (`org.freedesktop.portal.Documents`, run by
/// xdg-document-portal) on the person's session bus, as the agent asks it
/// from outside every sandbox: add a file for one Flatpak app, and take the
/// app's access back. The portal serves the file under its FUSE mount
/// (`GetMountPoint`, `/run/user/UID/doc`) as `DOCID/NAME`, and Flatpak
/// mounts the app's view of it (`by-app/APPID`) at the same place inside
/// the sandbox, so `MOUNTPOINT/DOCID/NAME` is the path the app opens.
///
/// Threads: the agent's loop only (a loop source: its bus is polled there).
final class DocumentPortal: AgentLoopSource {
    static let service = "org.freedesktop.portal.Documents"
    static let objectPath = "/org/freedesktop/portal/documents"
    static let interface = "org.freedesktop.portal.Documents"
    static let callTimeout = 10.0
    /// AddFull's flags: none. A document of its own for each grant, never
    /// the file's existing one (which the person's file chooser may have
    /// made for another app, whose access a revoke would take), and not
    /// persistent: it lasts while the portal runs, as Apple's access lasts
    /// while the app runs, and stopping deletes it.
    static let addFlags: UInt32 = 0
    /// What the app may do with it: read and save.
    static let permissions = ["read", "write"]

    let bus: SessionBus
    private var mountPoint: [UInt8]?

    /// Connects to the session bus at `address` (nil: the environment's).
    init(address: String? = nil) throws(DBusError) {
        bus = try SessionBus(address: address)
    }

    var fd: Int32 { bus.fd }
    var pollEvents: Int16 { bus.events }
    var timeoutMilliseconds: Int32 { bus.timeoutMilliseconds }
    func process() { bus.process() }
    func loopWillStop() { bus.close() }

    /// Adds the file open as `fd` (O_PATH; sd-bus sends a copy, the caller
    /// keeps its own) for `appID`: the document's ID and the portal's mount
    /// point, through `completion` on the loop thread.
    func add(_ fd: Int32, for appID: String,
             completion: @escaping (Result<(documentID: String, mountPoint: [UInt8]), HandoffError>) -> Void) {
        do throws(DBusError) {
            try bus.call(destination: Self.service, path: Self.objectPath, interface: Self.interface, member: "AddFull",
                         timeout: Self.callTimeout, build: { w throws(DBusError) in
                             try w.unixFDs([fd])
                             try w.uint32(Self.addFlags)
                             try w.string(appID)
                             try w.strings(Self.permissions)
                         }, reply: { [weak self] result in
                             guard let self else { return }
                             switch result {
                             case .failure(let error):
                                 completion(.failure(Self.failed("AddFull", error)))
                             case .success(let reader):
                                 do throws(DBusError) {
                                     // (as doc_ids, a{sv} extra_out)
                                     guard let id = try reader.strings(limit: 1).first, !id.isEmpty else {
                                         return completion(.failure(HandoffError(.io, "the document portal gave no document for the file")))
                                     }
                                     self.withMountPoint { [weak self] mount in
                                         // Without the mount point the grant cannot be
                                         // given, nor recorded to be taken back: take it back now.
                                         if case .failure = mount { self?.revoke(id, from: appID) { _ in } }
                                         completion(mount.map { (documentID: id, mountPoint: $0) })
                                     }
                                 } catch {
                                     completion(.failure(Self.failed("AddFull", error)))
                                 }
                             }
                         })
        } catch {
            completion(.failure(Self.failed("AddFull", error)))
        }
    }

    /// Takes `appID`'s access back: deletes the document the agent added
    /// for it (its own, never shared: `addFlags`); the file stays.
    func revoke(_ documentID: String, from appID: String, completion: @escaping (Result<Void, HandoffError>) -> Void) {
        do throws(DBusError) {
            try bus.call(destination: Self.service, path: Self.objectPath, interface: Self.interface, member: "Delete",
                         timeout: Self.callTimeout, build: { w throws(DBusError) in
                             try w.string(documentID)
                         }, reply: { result in
                             completion(result.map { _ in () }.mapError { Self.failed("Delete", $0) })
                         })
        } catch {
            completion(.failure(Self.failed("Delete", error)))
        }
    }

    /// The portal's mount point (asked once: it does not move while the
    /// portal runs), without the NUL the portal ends it with.
    private func withMountPoint(_ completion: @escaping (Result<[UInt8], HandoffError>) -> Void) {
        if let mountPoint { return completion(.success(mountPoint)) }
        do throws(DBusError) {
            try bus.call(destination: Self.service, path: Self.objectPath, interface: Self.interface, member: "GetMountPoint",
                         timeout: Self.callTimeout, reply: { [weak self] result in
                             switch result {
                             case .failure(let error):
                                 completion(.failure(Self.failed("GetMountPoint", error)))
                             case .success(let reader):
                                 do throws(DBusError) {
                                     var path = try reader.bytes(limit: 4096)
                                     while path.last == 0 { path.removeLast() }
                                     guard path.first == UInt8(ascii: "/") else {
                                         return completion(.failure(HandoffError(.io, "the document portal's mount point is not an absolute path")))
                                     }
                                     self?.mountPoint = path
                                     completion(.success(path))
                                 } catch {
                                     completion(.failure(Self.failed("GetMountPoint", error)))
                                 }
                             }
                         })
        } catch {
            completion(.failure(Self.failed("GetMountPoint", error)))
        }
    }

    static func failed(_ member: String, _ error: DBusError) -> HandoffError {
        HandoffError(.io, "the document portal (\(service), xdg-document-portal) failed \(member): \(error.message)")
    }
}
