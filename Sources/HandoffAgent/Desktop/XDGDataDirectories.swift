// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// Where installed apps are looked for (XDG Base Directory Specification):
/// `$XDG_DATA_HOME` (default `$HOME/.local/share`), then each directory of
/// `$XDG_DATA_DIRS` (default `/usr/local/share:/usr/share`), in that order
/// of precedence, then the folders Flatpak exports its apps' desktop
/// entries to, the user's installation (`<data home>/flatpak/exports/share`)
/// before the system's (`/var/lib/flatpak/exports/share`): flatpak's
/// profile script puts them in `$XDG_DATA_DIRS`, but a service started
/// without it (a systemd user unit, a script) would miss every Flatpak app.
/// Relative paths are ignored (the spec says they are invalid), so are
/// repeats (a folder already listed keeps its place); at most
/// `maxDirectories`.
public struct XDGDataDirectories: Sendable, Equatable {
    public static let maxDirectories = 32
    /// Flatpak's system installation (its default `--with-system-install-dir`).
    public static let flatpakSystemInstallation = "/var/lib/flatpak"
    /// Below an installation: where `flatpak` exports its apps' data files.
    static let flatpakExports = "/exports/share"

    /// Most important first; `directories[0]` is the data home when set.
    public var directories: [String]
    /// `$PATH`, for `TryExec` and `Exec` programs named without a path.
    public var searchPath: [String]
    /// `LC_ALL`, else `LC_MESSAGES`, else `LANG`.
    public var locale: String?
    /// The locales localized names are looked up in, in order: GLib's
    /// rule (`g_get_language_names`, what GNOME's and Xfce's menus show):
    /// the first of `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG` that is
    /// set and not empty, split at ":" (only `LANGUAGE` lists several).
    public var languages: [String]

    public init(directories: [String], searchPath: [String], locale: String? = nil, languages: [String]? = nil) {
        self.directories = directories
        self.searchPath = searchPath
        self.locale = locale
        self.languages = languages ?? locale.map { [$0] } ?? []
    }

    /// From an environment (the agent passes its own: `current`);
    /// `flatpakSystemInstallation` is for tests.
    public init(environment: [String: String], flatpakSystemInstallation: String = Self.flatpakSystemInstallation) {
        var list: [String] = []
        func add(_ path: String) {
            var path = path
            while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
            guard path.hasPrefix("/"), !list.contains(path), list.count < Self.maxDirectories else { return }
            list.append(path)
        }
        var dataHome: String?
        if let home = environment["XDG_DATA_HOME"], home.hasPrefix("/") {
            dataHome = home
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            dataHome = home + "/.local/share"
        }
        if let dataHome { add(dataHome) }
        let dirs = environment["XDG_DATA_DIRS"].flatMap { $0.isEmpty ? nil : $0 } ?? "/usr/local/share:/usr/share"
        for dir in dirs.split(separator: ":") { add(String(dir)) }
        if let dataHome { add(dataHome + "/flatpak" + Self.flatpakExports) }
        add(flatpakSystemInstallation + Self.flatpakExports)
        directories = list
        searchPath = (environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin")
            .split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
        locale = [environment["LC_ALL"], environment["LC_MESSAGES"], environment["LANG"]]
            .compactMap { $0 }.first { !$0.isEmpty }
        let first = [environment["LANGUAGE"], locale].compactMap { $0 }.first { !$0.isEmpty }
        languages = first.map { $0.split(separator: ":").map(String.init).filter { !$0.isEmpty } } ?? []
    }

    /// The process's own environment.
    public static func current() -> XDGDataDirectories {
        var environment: [String: String] = [:]
        for name in ["XDG_DATA_HOME", "XDG_DATA_DIRS", "HOME", "PATH", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
        }
        return XDGDataDirectories(environment: environment)
    }
}
