// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: SyncthingConfig.folders(_:home:), Syncthing's config.xml
// (docs/documents.md §2). Any input gives folders or a thrown error, never
// a trap; every folder has an ID that can travel, an absolute path, and no
// ID twice.
import HandoffModel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let folders = try? SyncthingConfig.folders(bytes, home: "/home/fuzz") else { return 0 }
    precondition(folders.count <= SyncthingConfig.maxFolders)
    precondition(Set(folders.map(\.id)).count == folders.count, "an ID twice")
    for folder in folders {
        precondition(DocumentRoots.isWireRoot(folder.id))
        precondition(folder.path.hasPrefix("/") && (folder.path == "/" || !folder.path.hasSuffix("/")))
    }
    return 0
}
