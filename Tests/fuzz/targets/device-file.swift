// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: AccountStore.loadDevice, reading the device file (id=, name=, role= lines)
// as a user's config directory holds it: the input is written to a private
// file of this process's directory, then loaded through the store's own
// checks and parser.
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
    unlink(store.devicePath)
    rmdir(store.directory)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let path = store.devicePath
    // A new file each time: truncating one makes ext4 flush it to disk.
    unlink(path)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    precondition(fd >= 0 && write(fd, data, size) == size && close(fd) == 0, "cannot write \(path)")
    guard let device = try? store.loadDevice() else { return 0 }
    precondition((try? AccountStore.parseDevice(String(decoding: AccountStore.deviceFile(device), as: UTF8.self), path: "-")) == device, "a loaded device does not survive being saved")
    return 0
}
