// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffContinuity
import HandoffModel

/// The relay's configuration beside the account (`AccountStore.directory`,
/// by default `$XDG_CONFIG_HOME/handoff`), in two files written with the
/// account files' care (`AccountFile`: atomic, mode 0600, no link, ours,
/// bounded):
///
/// - `relay`: the lines `url=…` (canonical, no password), optionally
///   `ca=/abs/path` and `allow-plain=yes`;
/// - `relay-password`: the password and a newline, only when there is one.
///
/// The password has a file of its own so that `relay` can be shown, copied
/// or attached to a bug report without it. `save` writes the password
/// first and the URL last, `clear` removes the URL first: a reader between
/// the two steps sees either no relay or a URL with a password meant for
/// it or for the previous URL, never a password with no URL.
public struct RelayConfigurationStore: Sendable {
    public static let fileName = "relay"
    public static let passwordFileName = "relay-password"

    public let account: AccountStore

    public init(directory: String) {
        account = AccountStore(directory: directory)
    }

    public var directory: String { account.directory }
    public var path: String { directory + "/" + Self.fileName }
    public var passwordPath: String { directory + "/" + Self.passwordFileName }

    /// The relay's configuration, nil when none is set (no `relay` file).
    /// - Throws: `.malformedData` for a damaged file (the message names it
    ///   and says how to fix it), `.permission` or `.io` for one that cannot
    ///   or may not be read (see `AccountFile.read`).
    public func load() throws(HandoffError) -> RelayConfiguration? {
        try account.checkDirectory()
        let text: String
        do throws(HandoffError) {
            text = try AccountFile.readText(path, missing: "")
        } catch {
            if error.code == .notFound { return nil }
            throw error
        }
        let fields = try Self.parse(text, path: path)
        guard let url = fields["url"] else { throw malformed(path, "it has no url= line") }
        var allowPlain = false
        if let value = fields["allow-plain"] {
            guard value == "yes" || value == "no" else {
                throw malformed(path, "allow-plain is \(AccountEncoding.quoted(value)), not yes or no")
            }
            allowPlain = value == "yes"
        }
        var configuration: RelayConfiguration
        do throws(HandoffError) {
            configuration = try RelayConfiguration(url: url, password: nil, caFile: fields["ca"], allowPlain: allowPlain)
        } catch {
            throw malformed(path, error.message)
        }
        // A password matters only with a user name (MQTT sends none without one).
        if configuration.username != nil {
            configuration.password = try loadPassword()
            do throws(HandoffError) {
                configuration = try RelayConfiguration(
                    scheme: configuration.scheme, host: configuration.host, port: configuration.port,
                    username: configuration.username, password: configuration.password,
                    caFile: configuration.caFile, allowPlain: configuration.allowPlain)
            } catch {
                throw malformed(passwordPath, error.message)
            }
        }
        return configuration
    }

    /// Writes the configuration, creating the directory (0700) if needed;
    /// the password (if any) to `relay-password`, else that file goes.
    public func save(_ c: RelayConfiguration) throws(HandoffError) {
        // Checked again: a caller may have built it field by field.
        let c = try RelayConfiguration(scheme: c.scheme, host: c.host, port: c.port, username: c.username,
                                       password: c.password, caFile: c.caFile, allowPlain: c.allowPlain)
        try account.ensureDirectory()
        if let password = c.password {
            _ = try AccountFile.writeAtomically(
                Array((password + "\n").utf8), to: passwordPath, directory: directory, replace: true)
        } else {
            try remove(passwordPath)
        }
        _ = try AccountFile.writeAtomically(Self.fileBytes(c), to: path, directory: directory, replace: true)
    }

    /// Removes both files; no error when they are absent.
    public func clear() throws(HandoffError) {
        try account.checkDirectory()
        try remove(path)
        try remove(passwordPath)
    }

    // MARK: Format

    static func fileBytes(_ c: RelayConfiguration) -> [UInt8] {
        var text = "url=\(c.url)\n"
        if let ca = c.caFile { text += "ca=\(ca)\n" }
        if c.allowPlain { text += "allow-plain=yes\n" }
        return Array(text.utf8)
    }

    /// `key=value` lines; unknown keys are kept (a later version may add
    /// some) and a key twice is damage.
    static func parse(_ text: String, path: String) throws(HandoffError) -> [String: String] {
        var fields: [String: String] = [:]
        for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw malformed(path, "line \(number + 1) is not key=value")
            }
            let key = String(line[..<equals])
            guard fields[key] == nil else { throw malformed(path, "\(key) appears twice") }
            fields[key] = String(line[line.index(after: equals)...])
        }
        return fields
    }

    private func loadPassword() throws(HandoffError) -> String? {
        let bytes: [UInt8]
        do throws(HandoffError) {
            bytes = try AccountFile.read(passwordPath, missing: "", maxSize: RelayConfiguration.maxPasswordLength + 1)
        } catch {
            if error.code == .notFound { return nil }
            if error.code == .malformedData { throw malformed(passwordPath, error.message) }
            throw error
        }
        var body = bytes[...]
        if body.last == 0x0A { body.removeLast() }
        guard let password = String(validating: body, as: UTF8.self) else {
            throw malformed(passwordPath, "it is not UTF-8 text")
        }
        return password
    }

    private func malformed(_ path: String, _ what: String) -> HandoffError {
        Self.malformed(path, what)
    }

    private static func malformed(_ path: String, _ what: String) -> HandoffError {
        HandoffError(
            .malformedData,
            "the relay configuration \(path) is damaged (\(what)): set it again with `handoff relay set URL`, "
                + "or remove it with `handoff relay clear`")
    }

    private func remove(_ file: String) throws(HandoffError) {
        guard unlink(file) == 0 || errno == ENOENT else {
            throw AccountFile.failure(errno, "cannot remove \(file)")
        }
    }
}
