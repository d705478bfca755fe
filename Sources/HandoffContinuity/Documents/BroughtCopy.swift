// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A document's bytes arriving from another device, written beside the
/// person's file and never over anything (docs/documents.md §4 step 4):
/// into a temporary file in the target folder, then linked under a name
/// nothing has (`STEM (from DEVICE).EXT`, then `… 2.EXT`…) once complete.
public final class BroughtCopy {
    public let directory: String
    private let name: String
    private let device: String
    private var fd: Int32
    private let temporary: String

    /// Starts a copy of `name` from `device` in `directory` (created when
    /// missing).
    /// - Throws: `.handoffFailed` naming the folder and the system's reason.
    public init(in directory: String, name: String, device: String) throws(HandoffError) {
        self.directory = directory
        self.name = name
        self.device = device
        var made = ""
        for part in directory.split(separator: "/") {
            made += "/" + part
            _ = mkdir(made, 0o700)
        }
        temporary = directory + "/.handoff-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).part"
        fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw HandoffError(.handoffFailed, "cannot write in \(directory): \(String(cString: strerror(errno)))")
        }
    }

    deinit { abandon() }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(HandoffError) {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw HandoffError(.handoffFailed, "cannot write in \(directory): \(String(cString: strerror(errno)))")
            }
            done += n
        }
    }

    /// Makes the copy appear under a free name; returns its path.
    public func commit() throws(HandoffError) -> String {
        guard fd >= 0 else { throw HandoffError(.handoffFailed, "the copy was abandoned") }
        guard fsync(fd) == 0 else { throw HandoffError(.handoffFailed, "cannot write in \(directory): \(String(cString: strerror(errno)))") }
        close(fd)
        fd = -1
        let (stem, ext) = Self.split(name)
        for n in 1...1000 {
            let candidate = directory + "/" + stem + " (from \(device))" + (n == 1 ? "" : " \(n)") + ext
            if link(temporary, candidate) == 0 {
                unlink(temporary)
                return candidate
            }
            guard errno == EEXIST else { break }
        }
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw HandoffError(.handoffFailed, "cannot name the copy of \(name) in \(directory): \(reason)")
    }

    /// Drops what was written.
    public func abandon() {
        if fd >= 0 {
            close(fd)
            fd = -1
            unlink(temporary)
        }
    }

    /// `plan.odt` → (`plan`, `.odt`); `.bashrc` and `README` have no extension.
    static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}
