// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffModel

/// The account key and the device identity on disk, in one directory
/// (`$XDG_CONFIG_HOME/handoff` by default) created with mode 0700:
///
/// - `account`: the pairing code and a newline, mode 0600;
/// - `device`: the lines `id=…`, `name=…`, `role=full|send-only`, mode 0600.
///
/// Writes are atomic (a temporary file in the same directory, fsync'd, then
/// renamed over the target). Loading refuses symbolic links, files of other
/// users, files any group or other user may access, and files over 4 KiB.
/// The directory itself is checked the same way before every read and
/// write (`checkDirectory`): not a symbolic link, ours, writable by no
/// group or other user.
public struct AccountStore: Sendable {
    /// Files larger than this are refused: both files are well under 200 bytes.
    public static let maxFileSize = 4096

    public let directory: String

    public init(directory: String) {
        self.directory = directory
    }

    public var accountPath: String { directory + "/account" }
    public var devicePath: String { directory + "/device" }

    /// `$XDG_CONFIG_HOME/handoff`, else `$HOME/.config/handoff`. A relative
    /// `XDG_CONFIG_HOME` is ignored, as the XDG Base Directory spec asks.
    public static func defaultDirectory() throws(HandoffError) -> String {
        if let config = environment("XDG_CONFIG_HOME"), config.hasPrefix("/") {
            return withoutTrailingSlashes(config) + "/handoff"
        }
        if let home = environment("HOME"), !home.isEmpty {
            return withoutTrailingSlashes(home) + "/.config/handoff"
        }
        throw HandoffError(
            .invalidState,
            "neither XDG_CONFIG_HOME nor HOME is set, so there is no place for the account: "
                + "set HOME (or XDG_CONFIG_HOME to an absolute path), or give the account directory explicitly")
    }

    // MARK: Account

    public func loadAccount() throws(HandoffError) -> AccountKey {
        try checkDirectory()
        let path = accountPath
        let text = try AccountFile.readText(
            path,
            missing: "no account yet (\(path) does not exist): create one with `handoff account create` "
                + "or join with `handoff account join CODE`")
        var code = Substring(text)
        if code.hasSuffix("\n") { code.removeLast() }
        do throws(HandoffError) {
            return try AccountKey(pairingCode: String(code))
        } catch {
            throw HandoffError(
                .malformedData,
                "\(path) does not hold a valid pairing code (\(error.message)): "
                    + "remove it and join again with `handoff account join CODE`")
        }
    }

    public func saveAccount(_ key: AccountKey) throws(HandoffError) {
        try ensureDirectory()
        _ = try AccountFile.writeAtomically(
            Array((key.pairingCode + "\n").utf8), to: accountPath, directory: directory, replace: true)
    }

    // MARK: Device

    public func loadDevice() throws(HandoffError) -> DeviceIdentity {
        try checkDirectory()
        let path = devicePath
        let text = try AccountFile.readText(
            path,
            missing: "this device has no identity yet (\(path) does not exist): "
                + "libhandoff creates one on first use (loadOrCreateDevice)")
        return try Self.parseDevice(text, path: path)
    }

    public func saveDevice(_ device: DeviceIdentity) throws(HandoffError) {
        let device = try DeviceIdentity(id: device.id, name: device.name, role: device.role)
        try ensureDirectory()
        _ = try AccountFile.writeAtomically(
            Self.deviceFile(device), to: devicePath, directory: directory, replace: true)
    }

    /// Loads the device identity, or creates and saves one named
    /// `defaultName` (e.g. the host name; made valid with
    /// `DeviceIdentity.sanitizedName`) on first use. When two processes
    /// race to create it, both end up with the one that reached the disk
    /// first.
    public func loadOrCreateDevice(defaultName: String) throws(HandoffError) -> DeviceIdentity {
        do throws(HandoffError) {
            return try loadDevice()
        } catch {
            guard error.code == .notFound else { throw error }
        }
        let device = try DeviceIdentity.generate(name: DeviceIdentity.sanitizedName(defaultName))
        try ensureDirectory()
        let created = try AccountFile.writeAtomically(
            Self.deviceFile(device), to: devicePath, directory: directory, replace: false)
        return created ? device : try loadDevice()
    }

    // MARK: Formats

    static func deviceFile(_ device: DeviceIdentity) -> [UInt8] {
        Array("id=\(device.id)\nname=\(device.name)\nrole=\(device.role.name)\n".utf8)
    }

    static func parseDevice(_ text: String, path: String) throws(HandoffError) -> DeviceIdentity {
        func malformed(_ what: String) -> HandoffError {
            HandoffError(
                .malformedData,
                "\(path) is not a device identity (\(what)): remove it and libhandoff creates a new one "
                    + "(other devices then see this one as new)")
        }
        var fields: [String: String] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw malformed("line \(number + 1) is not key=value")
            }
            let key = String(line[..<equals])
            guard fields[key] == nil else { throw malformed("\(key) appears twice") }
            // Unknown keys are ignored: a later version may add some.
            fields[key] = String(line[line.index(after: equals)...])
        }
        guard let id = fields["id"] else { throw malformed("it has no id= line") }
        guard let name = fields["name"] else { throw malformed("it has no name= line") }
        guard let roleName = fields["role"] else { throw malformed("it has no role= line") }
        guard let role = DeviceRole(name: roleName) else {
            throw malformed("role is \(AccountEncoding.quoted(roleName)), not full or send-only")
        }
        do throws(HandoffError) {
            return try DeviceIdentity(id: id, name: name, role: role)
        } catch {
            throw malformed(error.message)
        }
    }

    // MARK: Directory

    /// Refuses a directory that someone else could use to read or swap our
    /// files: a symbolic link (followed, it would put the key wherever the
    /// link points), a directory of another user, or one any group or other
    /// user may write to. A missing directory passes (nothing to read; a
    /// write creates it with mode 0700). Throws `.permission`, or `.io`
    /// when the path is not a directory.
    public func checkDirectory() throws(HandoffError) {
        // "dir/" would resolve a link named dir: look at the name itself.
        let directory = Self.withoutTrailingSlashes(self.directory)
        var info = stat()
        guard !directory.isEmpty, lstat(directory, &info) == 0 else {
            let error = errno
            if error == ENOENT { return }
            throw AccountFile.failure(error, "cannot inspect the account directory \(directory)")
        }
        let type = info.st_mode & S_IFMT
        if type == S_IFLNK {
            throw HandoffError(
                .permission,
                "the account directory \(directory) is a symbolic link, and libhandoff does not follow links to "
                    + "where it keeps its key: replace the link with a real directory (mkdir -m 700, then move "
                    + "the files into it), or give that directory's real path")
        }
        guard type == S_IFDIR else {
            throw HandoffError(.io, "\(directory) is not a directory: libhandoff needs a directory there for its account")
        }
        let me = geteuid()
        guard info.st_uid == me else {
            throw HandoffError(
                .permission,
                "the account directory \(directory) belongs to user id \(info.st_uid), not to you (user id \(me)): "
                    + "only its owner may use it; run as that user, or use a directory of your own "
                    + "(XDG_CONFIG_HOME), or chown it to yourself if it is yours")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o022 == 0 else {
            throw HandoffError(
                .permission,
                "the account directory \(directory) is writable by others (mode \(AccountFile.octal(mode))), "
                    + "who could replace the key: run chmod 700 \(directory)")
        }
    }

    /// Creates the directory and its missing parents with mode 0700, then
    /// checks it (`checkDirectory`).
    public func ensureDirectory() throws(HandoffError) {
        guard !directory.isEmpty else {
            throw HandoffError(.invalidArgument, "the account directory is an empty path: give a directory")
        }
        var prefix = directory.hasPrefix("/") ? "/" : ""
        for component in directory.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, 0o700) == 0 {
                // The umask may have taken bits away, never added: make it exact.
                chmod(prefix, 0o700)
                continue
            }
            let error = errno
            var info = stat()
            // Checked whatever the error: mkdir may say EACCES or EROFS for
            // a directory that exists.
            if stat(prefix, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { continue }
            if error == EEXIST {
                throw HandoffError(.io, "\(prefix) is not a directory: libhandoff needs a directory there for its account")
            }
            throw AccountFile.failure(error, "cannot create the directory \(prefix)")
        }
        try checkDirectory()
    }

    private static func environment(_ name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }

    private static func withoutTrailingSlashes(_ path: String) -> String {
        var path = Substring(path)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        return path == "/" ? "" : String(path)
    }
}

/// Small private files done carefully: plain POSIX through Glibc.
package enum AccountFile {
    /// Reads a file that only its owner may access, as UTF-8 text.
    package static func readText(_ path: String, missing: String) throws(HandoffError) -> String {
        let bytes = try read(path, missing: missing)
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw HandoffError(.malformedData, "\(path) is not UTF-8 text: it is no libhandoff file; remove it")
        }
        return text
    }

    /// Reads a regular file of at most `maxSize` bytes (by default
    /// `AccountStore.maxFileSize`) that belongs to the current user and
    /// grants no group or other permission; never follows a symbolic link.
    package static func read(_ path: String, missing: String, maxSize: Int = AccountStore.maxFileSize) throws(HandoffError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else {
            let error = errno
            switch error {
            case ENOENT:
                throw HandoffError(.notFound, missing)
            case ELOOP:
                throw HandoffError(
                    .permission,
                    "\(path) is a symbolic link, and libhandoff does not follow links to its key files: "
                        + "replace the link with the file itself")
            default:
                throw failure(error, "cannot read \(path)")
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw failure(errno, "cannot read \(path)") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw HandoffError(.io, "\(path) is not a regular file: remove it")
        }
        let me = geteuid()
        guard info.st_uid == me else {
            throw HandoffError(
                .permission,
                "\(path) belongs to user id \(info.st_uid), not to you (user id \(me)): "
                    + "only its owner may use it; remove it, or chown it to yourself if it is yours")
        }
        let mode = info.st_mode & 0o7777
        guard mode & 0o077 == 0 else {
            let what =
                mode & 0o044 != 0 ? "readable" : mode & 0o022 != 0 ? "writable" : "accessible"
            throw HandoffError(
                .permission, "\(path) is \(what) by others (mode \(octal(mode))): run chmod 600 \(path)")
        }
        guard info.st_size <= maxSize else { throw tooLarge(path, Int(info.st_size), maxSize) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: min(maxSize + 1, 1 << 16))
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw failure(errno, "cannot read \(path)")
            }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
            if bytes.count > maxSize { throw tooLarge(path, bytes.count, maxSize) }
        }
    }

    /// Writes `bytes` to `path` atomically: a new temporary file in
    /// `directory` (mode 0600), fsync'd, then renamed over `path`. With
    /// `replace` false an existing `path` is kept and the result is false.
    package static func writeAtomically(
        _ bytes: [UInt8], to path: String, directory: String, replace: Bool
    ) throws(HandoffError) -> Bool {
        let name = path.split(separator: "/").last.map(String.init) ?? "file"
        let temporary = "\(directory)/.\(name).tmp-\(AccountEncoding.hex(Crypto.randomBytes(8)))"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw failure(errno, "cannot write \(path) (creating \(temporary))") }
        var written = false
        defer { if !written { unlink(temporary) } }
        let wrote = fillAndSync(fd, bytes)
        let closed = close(fd) == 0 ? 0 : errno
        if let wrote { throw failure(wrote, "cannot write \(path)") }
        guard closed == 0 else { throw failure(closed, "cannot write \(path) (close)") }
        if replace {
            guard rename(temporary, path) == 0 else { throw failure(errno, "cannot write \(path) (rename)") }
        } else if link(temporary, path) != 0 {
            // link fails if `path` exists: exactly "create unless present".
            let error = errno
            if error == EEXIST { return false }
            // File systems without hard links: check, then rename.
            guard error == EPERM || error == EOPNOTSUPP || error == ENOSYS else {
                throw failure(error, "cannot write \(path) (link)")
            }
            var info = stat()
            if lstat(path, &info) == 0 { return false }
            guard rename(temporary, path) == 0 else { throw failure(errno, "cannot write \(path) (rename)") }
        } else {
            unlink(temporary)
        }
        written = true
        syncDirectory(directory)
        return true
    }

    /// Writes all of `bytes` to `fd` and fsyncs it; the errno on failure.
    private static func fillAndSync(_ fd: Int32, _ bytes: [UInt8]) -> Int32? {
        guard fchmod(fd, 0o600) == 0 else { return errno }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0 {
                if errno == EINTR { continue }
                return errno
            }
            offset += n
        }
        return fsync(fd) == 0 ? nil : errno
    }

    /// Makes a rename durable; best effort (some file systems refuse).
    private static func syncDirectory(_ directory: String) {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        fsync(fd)
        close(fd)
    }

    package static func failure(_ error: Int32, _ what: String) -> HandoffError {
        let reason = String(cString: strerror(error))
        switch error {
        case EACCES, EPERM:
            return HandoffError(.permission, "\(what): \(reason); check the permissions of the file and its directory")
        case ENOSPC, EDQUOT:
            return HandoffError(.io, "\(what): \(reason); free some space and try again")
        case EROFS:
            return HandoffError(.io, "\(what): \(reason); the account directory must be writable")
        default:
            return HandoffError(.io, "\(what): \(reason)")
        }
    }

    private static func tooLarge(_ path: String, _ size: Int, _ limit: Int) -> HandoffError {
        HandoffError(
            .malformedData,
            "\(path) is \(size) bytes, more than the \(limit) such a libhandoff file "
                + "may have: it is not one; remove or restore it")
    }

    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
