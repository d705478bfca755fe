// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffRuntime

/// The object behind a `handoff_remote_activity *`, lent to callbacks: the
/// remote activity and its strings as C, alive for the callback.
final class RemoteActivityBox {
    let remote: RemoteActivity
    let id: UnsafeMutablePointer<CChar>
    let type: UnsafeMutablePointer<CChar>
    let title: UnsafeMutablePointer<CChar>?
    let url: UnsafeMutablePointer<CChar>?
    let deviceName: UnsafeMutablePointer<CChar>
    let deviceID: UnsafeMutablePointer<CChar>

    init(_ remote: RemoteActivity) {
        self.remote = remote
        id = CMemory.string(remote.activityID.uuidString)
        type = CMemory.string(remote.activityType)
        title = remote.title.map(CMemory.string)
        url = remote.webpageURL.map { CMemory.string($0.absoluteString) }
        deviceName = CMemory.string(remote.deviceName)
        deviceID = CMemory.string(remote.deviceID)
    }

    deinit {
        for p in [id, type, title, url, deviceName, deviceID] { free(p) }
    }
}
