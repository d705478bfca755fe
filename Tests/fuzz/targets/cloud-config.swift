// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: CloudConfig.folders(_:), a Nextcloud or ownCloud client's
// nextcloud.cfg / owncloud.cfg (docs/documents.md §2). Any input gives
// folders or a thrown error, never a trap; every folder has an account
// with a user and a lowercase host, a clean server folder and an absolute
// local path.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let folders = try? CloudConfig.folders(bytes) else { return 0 }
    precondition(folders.count <= CloudConfig.maxFolders)
    for folder in folders {
        let at = folder.account.lastIndex(of: "@")!
        precondition(at != folder.account.startIndex && !folder.account.contains("/"))
        let host = folder.account[folder.account.index(after: at)...]
        precondition(!host.isEmpty && host == host.lowercased())
        precondition(folder.remote == "/" || (folder.remote.hasPrefix("/") && !folder.remote.hasSuffix("/")))
        precondition(!folder.remote.split(separator: "/").contains { $0 == "." || $0 == ".." })
        precondition(folder.path.hasPrefix("/"))
        precondition(folder.root.hasPrefix(folder.account))
    }
    return 0
}
