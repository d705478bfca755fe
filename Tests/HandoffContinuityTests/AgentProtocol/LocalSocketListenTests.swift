// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif
import HandoffBase
import HandoffModel
@testable import HandoffContinuity
import Testing

/// The agent's socket path appears only once the socket accepts: an app
/// that finds the path connects (it used to be refused between bind and
/// listen, and started without the agent; a test that waited for the file
/// was refused under load).
@Suite struct LocalSocketListenTests {
    @Test func thePathIsNeverThereBeforeTheSocketListens() throws {
        var template = Array("/tmp/handoff-listen-\(getpid())-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let folder = String(cString: try #require(made))
        defer { rmdir(folder) }
        let path = folder + "/agent.sock"

        // Another thread connects as fast as it can while the socket is
        // made and closed again, 300 times; it counts the refusals.
        let stop = Locked(false)
        let refused = Locked(0)
        let connected = Locked(0)
        let finished = Locked(false)
        #expect(startDetachedThread {
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, b) in path.utf8.enumerated() { raw[i] = b }
            }
            while !stop.withLock({ $0 }) {
                let fd = socket(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue | SOCK_CLOEXEC.rawValue), 0)
                let result = withUnsafePointer(to: &address) {
                    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
                }
                let code = errno
                close(fd)
                if result == 0 { connected.withLock { $0 += 1 } } else if code == ECONNREFUSED { refused.withLock { $0 += 1 } }
            }
            finished.withLock { $0 = true }
        })
        for _ in 0..<300 {
            let fd = try LocalSocket.listen(at: path)
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFSOCK && info.st_mode & 0o777 == 0o600)
            unlink(path)
            close(fd)
        }
        stop.withLock { $0 = true }
        var waited = 0
        while !finished.withLock({ $0 }) && waited < 10_000 { usleep(1000); waited += 1 }
        #expect(refused.withLock { $0 } == 0)
        // Nothing else is left in the folder (the staging names are gone).
        let dir = opendir(folder)
        var names: [String] = []
        while let dir, let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        if let dir { closedir(dir) }
        #expect(names == [])
    }

    @Test func aSecondListenerIsRefusedWhileTheFirstListens() throws {
        var template = Array("/tmp/handoff-listen-\(getpid())-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        let folder = String(cString: try #require(made))
        defer { rmdir(folder) }
        let path = folder + "/agent.sock"
        let first = try LocalSocket.listen(at: path)
        defer { close(first); unlink(path) }
        #expect(throws: HandoffError.self) { try LocalSocket.listen(at: path) }
    }
}
