// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffBase
import HandoffBridges
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The desktop entries installed here, every one (not only Handoff apps):
/// the agent's scanner and parser, read for what the documents bridge
/// needs: the program each runs (to match a bookmark's app and its
/// process), whether it takes files, its MIME types, and how to start it.
/// Rescanned at most every `rescanInterval` seconds, when an app is not found.
final class DocumentsApps {
    static let rescanInterval = 10.0

    struct Installed {
        var entry: DocumentAppMatch.Entry
        var path: String
        var exec: ExecCommandLine
        var workingDirectory: String?
    }

    private(set) var installed: [Installed] = []
    private var scannedAt = -Double.infinity
    let directories: XDGDataDirectories

    init(directories: XDGDataDirectories = .current()) {
        self.directories = directories
        rescan()
    }

    var entries: [DocumentAppMatch.Entry] { installed.map(\.entry) }

    func rescan() {
        scannedAt = monotonicSeconds()
        var out: [Installed] = []
        for found in DesktopFileScanner(directories: directories.directories).ordered {
            guard let desktop = try? DesktopEntry(path: found.path),
                  (try? desktop.string("Type")) == "Application",
                  (try? desktop.boolean("Hidden")) != true,
                  let line = try? desktop.string("Exec"), let exec = try? ExecCommandLine(line) else { continue }
            var programs: Set<String> = [DocumentAppMatch.basename(exec.program)]
            if let file = ExecutableLookup.find(exec.program, in: directories.searchPath), let real = realpath(file, nil) {
                programs.insert(DocumentAppMatch.basename(String(cString: real)))
                free(real)
            }
            let mimeTypes = ((try? desktop.strings("MimeType")) ?? nil) ?? []
            let entry = DocumentAppMatch.Entry(id: found.id, programs: programs, takesFiles: exec.fileField != nil,
                                               noDisplay: (try? desktop.boolean("NoDisplay")) == true, mimeTypes: mimeTypes)
            let directory = (try? desktop.string("Path")) ?? nil
            out.append(Installed(entry: entry, path: found.path, exec: exec,
                                 workingDirectory: directory.flatMap { $0.hasPrefix("/") ? $0 : nil }))
        }
        installed = out
    }

    /// The entry of a bookmark's app; rescans once when none matches.
    func entry(for application: RecentBookmark.Application) -> DocumentAppMatch.Entry? {
        if let found = DocumentAppMatch.entry(for: application, among: entries) { return found }
        guard monotonicSeconds() - scannedAt >= Self.rescanInterval else { return nil }
        rescan()
        return DocumentAppMatch.entry(for: application, among: entries)
    }

    func installed(_ id: String) -> Installed? { installed.first { $0.entry.id == id } }

    /// shared-mime-info's globs of the data directories, read once.
    private(set) lazy var globs: MimeGlobs = {
        var globs = MimeGlobs()
        for folder in directories.directories {
            if let bytes = DocumentsFiles.read(folder + "/mime/globs2", max: MimeGlobs.maxBytes) { globs.read(bytes) }
        }
        return globs
    }()

    /// The person's default app for `mimeType`: `mimeapps.list` in the
    /// config then data directories, then the first entry listing it in
    /// `MimeType=` that takes files.
    func defaultApp(for mimeType: String, environment: [String: String]) -> Installed? {
        let home = environment["HOME"] ?? ""
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil } ?? home + "/.config"
        let configDirs = (environment["XDG_CONFIG_DIRS"] ?? "/etc/xdg").split(separator: ":").map(String.init)
        let lists = [config] + configDirs + directories.directories.map { $0 + "/applications" }
        for folder in lists {
            guard let bytes = DocumentsFiles.read(folder + "/mimeapps.list", max: MimeAppsList.maxBytes) else { continue }
            for id in MimeAppsList.defaults(bytes, mimeType: mimeType) {
                if let app = installed(id) { return app }
            }
        }
        return installed.first { $0.entry.takesFiles && $0.entry.mimeTypes.contains(mimeType) }
    }
}
