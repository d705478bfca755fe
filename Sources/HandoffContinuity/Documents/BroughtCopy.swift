// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A document's bytes arriving from another device, written beside the
/// person's file and never over anything (docs/documents.md §4 step 4):
/// into an unnamed file in the target folder (`O_TMPFILE`; where the
/// filesystem has none, `.handoff-XXXXXX.part`), fsynced, then linked
/// under a name nothing has (`STEM (from DEVICE).EXT`, then
/// `… 2.EXT`…): a link fails rather than replace, so a name taken
/// meanwhile is skipped, never overwritten. Abandoned, nothing is left.
public final class BroughtCopy {
    /// The folder the copy goes in (for messages; it is written through a
    /// descriptor opened once, so a link swapped in later changes nothing).
    public let directory: String
    private let name: String
    private let device: String
    private let directoryFD: Int32
    private var fd: Int32
    /// The `.part` file's name; nil for an unnamed (O_TMPFILE) one.
    private var temporary: String?

    /// Starts a copy of `name` from `device` in `directory` (created when
    /// missing: the downloads folder). The folder is the person's, so a
    /// link in its own path is followed.
    /// - Throws: `.handoffFailed` naming the folder and the system's reason.
    public convenience init(in directory: String, name: String, device: String) throws(HandoffError) {
        let path = DocumentSettings.normalized(directory)
        Self.makeFolders(path)
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.failure(path) }
        try self.init(directoryFD: fd, directory: path, name: name, device: device)
    }

    /// Starts the copy of a document that belongs at `slot`: beside the
    /// file there when its folder exists beneath the slot's root, `places`
    /// admits a copy there and a file can be made in it; else in
    /// `places.downloads`.
    /// - Throws: `.handoffFailed` when neither can be written.
    public static func start(for slot: DocumentSlot?, name: String, device: String,
                             places: DocumentPlaces) throws(HandoffError) -> BroughtCopy {
        if let slot, places.admitsBroughtCopy(beside: slot), let fd = slot.openDirectory() {
            // The folder as opened (links inside the root followed): never a
            // hidden one under home or the root (`~/.config/autostart` as a
            // synced root, or reached through `~/conf -> .config`), never one
            // this device does not describe.
            if let opened = openedPath(fd), places.admitsBroughtCopy(in: opened, root: slot.root) {
                // A folder this device cannot write in (a read-only mount,
                // another user's folder, a full disk): the copy still comes,
                // into downloads. The failed start closed `fd`.
                if let copy = try? BroughtCopy(directoryFD: fd, directory: slot.directory, name: name, device: device) {
                    return copy
                }
            } else {
                close(fd)
            }
        }
        guard let downloads = places.downloads else {
            throw HandoffError(.handoffFailed, "no folder for the copy of \(DocumentText.escaped(name)): this device has no home")
        }
        return try BroughtCopy(in: downloads, name: name, device: device)
    }

    /// The path the kernel has for an open descriptor (`/proc/self/fd`).
    static func openedPath(_ fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: 4097)
        let n = readlink("/proc/self/fd/\(fd)", &buffer, 4096)
        guard n > 0, buffer[0] == CChar(UInt8(ascii: "/")) else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Takes `directoryFD` (closed with the copy).
    init(directoryFD: Int32, directory: String, name: String, device: String, unnamed: Bool = true) throws(HandoffError) {
        self.directoryFD = directoryFD
        self.directory = directory
        self.name = Self.safeName(name)
        self.device = Self.safeDevice(device)
        fd = -1
        if unnamed && access("/proc/self/fd", F_OK) == 0 {
            fd = openat(directoryFD, ".", Self.tmpfile | O_WRONLY | O_CLOEXEC, 0o600)
        }
        var tries = 0
        while fd < 0 && tries < 16 {
            tries += 1
            let candidate = ".handoff-\(Self.randomTag()).part"
            fd = openat(directoryFD, candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if fd >= 0 { temporary = candidate } else if errno != EEXIST { break }
        }
        // Every property is set: deinit runs on the throw and closes
        // directoryFD (closing it here too would close it twice).
        guard fd >= 0 else { throw Self.failure(directory) }
    }

    deinit {
        abandon()
        close(directoryFD)
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws(HandoffError) {
        guard fd >= 0 else { throw HandoffError(.handoffFailed, "the copy of \(DocumentText.escaped(name)) was abandoned") }
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.failure(directory)
            }
            done += n
        }
    }

    /// Makes the copy appear under a free name; returns its path.
    public func commit() throws(HandoffError) -> String {
        guard fd >= 0 else { throw HandoffError(.handoffFailed, "the copy of \(DocumentText.escaped(name)) was abandoned") }
        guard fsync(fd) == 0 else {
            let error = Self.failure(directory)
            abandon()
            throw error
        }
        var reason = EEXIST
        for n in 1...1000 {
            let candidate = Self.copyName(name, device: device, number: n)
            if link(as: candidate) {
                abandon()  // the name stays; the descriptor and any .part go
                fsync(directoryFD)
                return directory + "/" + candidate
            }
            reason = errno
            guard reason == EEXIST else { break }
        }
        abandon()
        throw HandoffError(.handoffFailed, "cannot name the copy of \(DocumentText.escaped(name)) in \(DocumentText.escaped(directory)): \(String(cString: strerror(reason)))")
    }

    /// Links the written file as `candidate`; false with errno (EEXIST:
    /// the name is taken).
    private func link(as candidate: String) -> Bool {
        guard let temporary else {
            return linkat(AT_FDCWD, "/proc/self/fd/\(fd)", directoryFD, candidate, AT_SYMLINK_FOLLOW) == 0
        }
        if linkat(directoryFD, temporary, directoryFD, candidate, 0) == 0 { return true }
        guard errno == EPERM || errno == EOPNOTSUPP || errno == EMLINK || errno == ENOSYS else { return false }
        // A filesystem without hard links: a rename that refuses to replace.
        if clinux_renameat2(directoryFD, temporary, directoryFD, candidate, CLINUX_RENAME_NOREPLACE) == 0 {
            self.temporary = nil
            return true
        }
        return false
    }

    /// Drops what was written (the name, once committed, stays).
    public func abandon() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
        if let temporary {
            unlinkat(directoryFD, temporary, 0)
            self.temporary = nil
        }
    }

    // MARK: Names

    /// `STEM (from DEVICE).EXT`, then `STEM (from DEVICE) N.EXT`, within
    /// 255 bytes (the stem is cut, never the extension).
    static func copyName(_ name: String, device: String, number: Int) -> String {
        var (stem, ext) = split(name)
        if ext.utf8.count > 32 { (stem, ext) = (name, "") }
        let suffix = " (from \(device))" + (number == 1 ? "" : " \(number)") + ext
        return truncateUTF8(stem, to: max(1, 255 - suffix.utf8.count)) + suffix
    }

    /// `plan.odt` → (`plan`, `.odt`); `.bashrc` and `README` have no extension.
    static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }

    /// A device's name as part of a file name: `/`, control and
    /// bidirectional characters (`DocumentText.isUnsafe`) become `_`, cut to 64 bytes; "another device" when nothing is left.
    static func safeDevice(_ device: String) -> String {
        let cleaned = replacingUnsafe(device).trimmingCharactersSpaces()
        return cleaned.isEmpty ? "another device" : truncateUTF8(cleaned, to: 64)
    }

    /// The document's name with the same replacements; never `.` or `..`.
    static func safeName(_ name: String) -> String {
        let cleaned = replacingUnsafe(name)
        return cleaned.isEmpty || cleaned == "." || cleaned == ".." ? "document" : truncateUTF8(cleaned, to: 255)
    }

    private static func replacingUnsafe(_ text: String) -> String {
        String(text.unicodeScalars.map { $0 == "/" || DocumentText.isUnsafe($0) ? "_" : Character($0) })
    }

    // MARK: System

    /// O_TMPFILE (`__O_TMPFILE | O_DIRECTORY`), which Swift's Glibc does
    /// not import.
    static let tmpfile: Int32 = 0o20000000 | O_DIRECTORY

    private static func randomTag() -> String {
        let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        return String((0..<6).map { _ in letters.randomElement()! })
    }

    /// `mkdir -p`, each new folder 0700.
    private static func makeFolders(_ path: String) {
        var prefix = ""
        for part in path.split(separator: "/") {
            prefix += "/" + part
            _ = mkdir(prefix, 0o700)
        }
    }

    private static func failure(_ directory: String) -> HandoffError {
        HandoffError(.handoffFailed, "cannot write in \(DocumentText.escaped(directory)): \(String(cString: strerror(errno)))")
    }
}

extension String {
    fileprivate func trimmingCharactersSpaces() -> String {
        var text = Substring(self).drop { $0 == " " }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
