// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The settings file beside the account (`<account directory>/settings`,
/// by default `$XDG_CONFIG_HOME/handoff/settings`): read with the account
/// files' care (ours, mode 0600, no link, bounded) and written atomically
/// (temporary file, fsync, rename; mode 0600). Every writer (`handoff
/// settings`, the tray through `update`) goes through here; every engine
/// reads it through `load` and `SettingsWatch`.
///
/// Two writers at the same instant: the last rename wins (each update is
/// read-modify-write of a small file; people do not race themselves).
public struct SettingsStore: Sendable {
    public static let fileName = "settings"

    public let account: AccountStore

    public init(directory: String) {
        account = AccountStore(directory: directory)
    }

    public var directory: String { account.directory }
    public var path: String { directory + "/" + Self.fileName }

    /// What a reader got: the settings, and why they are the defaults
    /// when the file could not be used (nil when it was fine or absent).
    public struct Loaded: Sendable {
        public var settings: HandoffSettings
        public var problem: HandoffError?
    }

    /// The settings; the defaults when there is no file; the defaults and
    /// the reason when it is damaged or unsafe. Never throws: engines call
    /// it and keep running.
    public func load() -> Loaded {
        do throws(HandoffError) {
            return Loaded(settings: try loadStrictly(), problem: nil)
        } catch {
            return Loaded(settings: .defaults, problem: error)
        }
    }

    /// The settings, the defaults when there is no file.
    /// - Throws: `.malformedData` for a damaged file, `.permission` or
    ///   `.io` for one that cannot or may not be read.
    public func loadStrictly() throws(HandoffError) -> HandoffSettings {
        let bytes: [UInt8]
        do throws(HandoffError) {
            bytes = try AccountFile.read(path, missing: "", maxSize: HandoffSettings.limits.maxBytes)
        } catch {
            if error.code == .notFound { return .defaults }
            throw error
        }
        return try HandoffSettings(bytes: bytes, source: path)
    }

    /// Writes the settings atomically, creating the directory (0700) if needed.
    public func save(_ settings: HandoffSettings) throws(HandoffError) {
        try account.ensureDirectory()
        _ = try AccountFile.writeAtomically(settings.fileBytes, to: path, directory: directory, replace: true)
    }

    /// Reads, changes and writes the settings: how the CLI and the tray
    /// change them (`SettingsStore.update { $0.paused = true }`). A
    /// damaged file is not overwritten: the error says what is wrong.
    /// Returns the settings written.
    @discardableResult
    public func update(_ change: (inout HandoffSettings) throws(HandoffError) -> Void) throws(HandoffError) -> HandoffSettings {
        var settings: HandoffSettings
        do throws(HandoffError) {
            settings = try loadStrictly()
        } catch {
            throw HandoffError(error.code, "\(error.message) (the settings were not changed: fix or remove \(path))")
        }
        try change(&settings)
        try save(settings)
        return settings
    }

    /// The store of the default account directory.
    public static func `default`() throws(HandoffError) -> SettingsStore {
        SettingsStore(directory: try AccountStore.defaultDirectory())
    }
}
