// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: the documents bridge's input (docs/documents.md §7): a
// `recently-used.xbel` read with expat, and the same bytes as a KDE
// RecentDocuments entry and as the settings file's opt-outs. Any input
// gives bookmarks within their bounds or an error, never a trap.
import HandoffBridges

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let bookmarks = try? RecentlyUsedReader.read(bytes, keep: 8) {
        precondition(bookmarks.count <= 8)
        for (index, bookmark) in bookmarks.enumerated() {
            precondition(!bookmark.href.isEmpty && bookmark.href.utf8.count <= RecentlyUsedReader.maxURLBytes)
            precondition(bookmark.applications.count <= RecentlyUsedReader.maxApplications)
            precondition((bookmark.description?.utf8.count ?? 0) <= RecentlyUsedReader.maxDescriptionBytes * 3)
            if index > 0 { precondition(bookmarks[index - 1].lastUsed >= bookmark.lastUsed) }
            _ = bookmark.description.flatMap(DocumentCursor.fromDescription)
            _ = bookmark.newestApplication.flatMap { DocumentAppMatch.program(ofExec: $0.exec) }
            _ = DocumentOfferRules.localPath(bookmark.href)
        }
    }
    _ = try? KDERecentDocument.read(bytes, source: "fuzz", modified: 0, home: "/home/fuzz")
    _ = MimeAppsList.defaults(bytes, mimeType: "text/plain")
    return 0
}
