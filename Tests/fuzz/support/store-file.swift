// SPDX-License-Identifier: MIT OR Apache-2.0
// What the account-file and device-file targets share: a private
// AccountStore directory of this process, and the input written as one of
// its files, as a user's config directory holds it.
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoffContinuity

let store: AccountStore = {
    let parent = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(parent)/handoff-fuzz-XXXXXX".utf8CString)
    guard let directory = mkdtemp(&template) else { fatalError("mkdtemp failed") }
    let store = AccountStore(directory: String(cString: directory))
    atexit { removeStore() }
    return store
}()

/// Leaves nothing behind when the fuzzer exits normally.
func removeStore() {
    unlink(store.accountPath)
    unlink(store.devicePath)
    rmdir(store.directory)
}

/// The input as the whole of the store's file at `path`.
func writeStoreFile(_ path: String, _ data: UnsafePointer<UInt8>, _ size: Int) {
    // A new file each time: truncating one makes ext4 flush it to disk.
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    precondition(fd >= 0 && write(fd, data, size) == size && close(fd) == 0, "cannot write \(path)")
}
