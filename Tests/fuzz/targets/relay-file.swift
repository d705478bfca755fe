// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: RelayConfigurationStore.load, reading the relay file (url=,
// ca=, allow-plain= lines) as a user's config directory holds it, through
// the store's own checks and RelayConfiguration's URL parser. What loads
// must save and load back the same; the input read as a URL, when it
// parses, must parse the same from its canonical form.
#if canImport(Glibc)
import Glibc
#endif
@testable import HandoffContinuity
@testable import HandoffRelay

let store: RelayConfigurationStore = {
    let parent = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
    var template = Array("\(parent)/handoff-fuzz-XXXXXX".utf8CString)
    guard let directory = mkdtemp(&template) else { fatalError("mkdtemp failed") }
    let store = RelayConfigurationStore(directory: String(cString: directory))
    atexit { removeStore() }
    return store
}()

/// Leaves nothing behind when the fuzzer exits normally.
func removeStore() {
    unlink(store.path)
    unlink(store.passwordPath)
    rmdir(store.directory)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let text = String(decoding: bytes, as: UTF8.self)
    if let c = try? RelayConfiguration(url: text, password: nil, allowPlain: true) {
        precondition((try? RelayConfiguration(url: c.url, password: nil, allowPlain: true)) == c,
                     "\(c.url) does not parse to the configuration it came from")
    }
    let path = store.path
    // A new file each time: truncating one makes ext4 flush it to disk.
    unlink(path)
    unlink(store.passwordPath)
    let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
    precondition(fd >= 0 && write(fd, data, size) == size && close(fd) == 0, "cannot write \(path)")
    // try? flattens load()'s optional: nil is a refusal or no relay.
    guard let c = try? store.load() else { return 0 }
    precondition((try? store.save(c)) != nil, "a loaded relay cannot be saved")
    precondition((try? store.load()) == c, "a loaded relay does not survive being saved")
    return 0
}
