// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: DocumentReceiver.resolve, what a receiver does with a
// payload's documents before its app sees it (PROTOCOL.md §12), with a
// scratch home holding one file and no way to bring bytes. Whatever the
// payload, nothing is written (no sender can be asked), and what it
// rewrites names only files below the home, each with an origin (or, for
// a payload without documents, only lost the sender's own origins).
#if canImport(Glibc)
import Glibc
#endif
import HandoffModel
@testable import HandoffContinuity

/// A scratch home with `notes/plan.txt` ("plan") and a link out of it.
let home: String = {
    let base = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array((base + "/document-payload-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("mkdtemp") }
    let root = String(cString: made)
    mkdir(root + "/notes", 0o700)
    let fd = open(root + "/notes/plan.txt", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
    precondition(fd >= 0 && write(fd, "plan", 4) == 4 && close(fd) == 0)
    symlink("/etc", root + "/out")
    atexit { _ = system("rm -rf '\(String(cString: getenv("DOCUMENT_PAYLOAD_HOME")!))'") }
    setenv("DOCUMENT_PAYLOAD_HOME", root, 1)
    return root
}()

let expected = ["notes", "notes/plan.txt", "out"]
let receiver = DocumentReceiver { DocumentPlaces(home: home) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let payload = Array(UnsafeBufferPointer(start: data, count: size))
    let result = receiver.resolve(payload, revision: 4, from: "fuzz", bring: nil)
    precondition(listing(home) == expected, "the receiver wrote in its home: \(listing(home))")
    guard case .success(let resolved) = result, resolved != payload else { return 0 }
    guard let activity = try? ActivityCoding.decode(resolved) else { fatalError("a resolved payload does not decode") }
    guard case .dictionary(let origins)? = activity.userInfo[DocumentReceiver.originsKey] else {
        // Without documents, only the sender's own origins are dropped.
        precondition(activity.userInfo[DocumentReceiver.originsKey] == nil, "a payload was rewritten with origins that are not a dictionary")
        return 0
    }
    for url in DocumentURLs.find(in: activity.userInfo) {
        guard let path = FileURL.path(of: url), path.hasPrefix(home + "/") else { fatalError("the app would get \(url)") }
        precondition(origins[url] == .string("same"), "no origin for \(url)")
    }
    return 0
}

/// Every entry below `root`, not following links, sorted.
func listing(_ root: String) -> [String] {
    var out: [String] = []
    var stack = [""]
    while let relative = stack.popLast(), out.count < 100 {
        guard let d = opendir(relative.isEmpty ? root : root + "/" + relative) else { continue }
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
            let path = relative.isEmpty ? name : relative + "/" + name
            out.append(path)
            if e.pointee.d_type == UInt8(DT_DIR) { stack.append(path) }
        }
        closedir(d)
    }
    return out.sorted()
}
