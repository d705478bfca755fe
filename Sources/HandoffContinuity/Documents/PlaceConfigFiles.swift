// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Where the configuration of the places' programs is on this device.
struct PlaceConfigFiles {
    let environment: [String: String]
    let home: String?

    private func absolute(_ key: String) -> String? {
        environment[key].flatMap { $0.hasPrefix("/") ? DocumentSettings.normalized($0) : nil }
    }

    private var configHome: String? { absolute("XDG_CONFIG_HOME") ?? home.map { $0 + "/.config" } }

    /// Syncthing's config.xml: `$STCONFDIR`, `$STHOMEDIR`, then the
    /// folders of 1.27 and later (`$XDG_STATE_HOME/syncthing`,
    /// `~/.local/state/syncthing`), then the older ones
    /// (`$XDG_CONFIG_HOME/syncthing`, `~/.config/syncthing`): the first
    /// that holds one, as Syncthing itself picks.
    func syncthing() -> String? {
        let folders: [String?] = [
            absolute("STCONFDIR"), absolute("STHOMEDIR"),
            absolute("XDG_STATE_HOME").map { $0 + "/syncthing" }, home.map { $0 + "/.local/state/syncthing" },
            absolute("XDG_CONFIG_HOME").map { $0 + "/syncthing" }, home.map { $0 + "/.config/syncthing" },
        ]
        return folders.compactMap { $0.map { $0 + "/config.xml" } }.first { access($0, F_OK) == 0 }
    }

    /// Every cloud client's configuration that exists: Nextcloud's and
    /// ownCloud's, and Nextcloud's Flatpak's.
    func cloud() -> [String] {
        var files: [String] = []
        if let configHome {
            files += [configHome + "/Nextcloud/nextcloud.cfg", configHome + "/ownCloud/owncloud.cfg"]
        }
        if let home { files.append(home + "/.var/app/com.nextcloud.desktopclient.nextcloud/config/Nextcloud/nextcloud.cfg") }
        return files.filter { access($0, F_OK) == 0 }
    }

    func userDirs() -> String? {
        configHome.map { $0 + "/user-dirs.dirs" }
    }

    /// A configuration file's bytes, at most `max`.
    /// - Throws: `.io` naming why it cannot be read, `.malformedData` when larger.
    static func read(_ path: String, max: Int) throws(HandoffError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw HandoffError(.io, "cannot open it: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { throw HandoffError(.io, "not a regular file") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw HandoffError(.io, "cannot read it: \(String(cString: strerror(errno)))") }
            if n == 0 { return bytes }
            bytes += chunk[0..<n]
            guard bytes.count <= max else { throw HandoffError(.malformedData, "over \(max) bytes") }
        }
    }
}
