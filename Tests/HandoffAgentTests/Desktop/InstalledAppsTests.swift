// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing
@testable import HandoffAgent

// The registry over real folders: a temporary XDG_DATA_HOME and two
// XDG_DATA_DIRS entries holding desktop entries and manifests.

/// A desktop entry declaring Handoff keys; `extra` lines are appended.
func handoffEntry(team: String = "TEAMA", types: String = "com.example.shared;", exec: String = "app %U", _ extra: String = "") -> String {
    """
    [Desktop Entry]
    Type=Application
    Name=App
    Exec=\(exec)
    X-Handoff-TeamIdentifier=\(team)
    X-Handoff-ActivityTypes=\(types)
    \(extra)
    """
}

func manifestXML(bundle: String, team: String = "TEAMM", types: [String], entry: String?) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <plist version="1.0"><dict>
    <key>CFBundleIdentifier</key><string>\(bundle)</string>
    <key>HandoffTeamIdentifier</key><string>\(team)</string>
    <key>NSUserActivityTypes</key><array>\(types.map { "<string>\($0)</string>" }.joined())</array>
    \(entry.map { "<key>HandoffDesktopEntry</key><string>\($0)</string>" } ?? "")
    </dict></plist>
    """
}

/// home, dir1, dir2 under one temporary tree.
struct DataFolders {
    let tree = TemporaryTree("handoff-apps")
    var directories: XDGDataDirectories {
        XDGDataDirectories(environment: [
            "XDG_DATA_HOME": tree.path("home"),
            "XDG_DATA_DIRS": "\(tree.path("dir1")):relative/ignored:\(tree.path("dir2"))/",
            "PATH": "/usr/bin:/bin",
            "LANG": "de_DE.UTF-8",
        ], flatpakSystemInstallation: tree.path("flatpak"))
    }
}

@Suite struct InstalledAppsTests {
    @Test func directoriesFromTheEnvironment() {
        let flatpak = ["/home/p/.local/share/flatpak/exports/share", "/var/lib/flatpak/exports/share"]
        let defaults = XDGDataDirectories(environment: ["HOME": "/home/p"])
        #expect(defaults.directories == ["/home/p/.local/share", "/usr/local/share", "/usr/share"] + flatpak)
        let empty = XDGDataDirectories(environment: ["HOME": "/home/p", "XDG_DATA_HOME": "", "XDG_DATA_DIRS": ""])
        #expect(empty.directories == ["/home/p/.local/share", "/usr/local/share", "/usr/share"] + flatpak)
        let set = XDGDataDirectories(environment: ["XDG_DATA_HOME": "rel", "HOME": "/h", "XDG_DATA_DIRS": "/a:/b/:/a:x", "LC_ALL": "fr_FR", "LANG": "de_DE"])
        #expect(set.directories == ["/h/.local/share", "/a", "/b", "/h/.local/share/flatpak/exports/share", "/var/lib/flatpak/exports/share"])
        #expect(set.locale == "fr_FR")
        let noHome = XDGDataDirectories(environment: [:])
        #expect(noHome.directories == ["/usr/local/share", "/usr/share", "/var/lib/flatpak/exports/share"])
    }

    /// GLib's rule for the names menus show (issue 34: `LANGUAGE=de` alone
    /// did not pick `Name[de]`): LANGUAGE first, a list; else LC_ALL,
    /// LC_MESSAGES, LANG.
    @Test func languagesFollowGLib() throws {
        #expect(XDGDataDirectories(environment: ["LANGUAGE": "de"]).languages == ["de"])
        #expect(XDGDataDirectories(environment: ["LANGUAGE": "de_AT:fr::en", "LANG": "it_IT.UTF-8"]).languages
                == ["de_AT", "fr", "en"])
        #expect(XDGDataDirectories(environment: ["LANGUAGE": "", "LC_MESSAGES": "fr_FR", "LANG": "de_DE"]).languages == ["fr_FR"])
        #expect(XDGDataDirectories(environment: ["LC_ALL": "sv_SE", "LC_MESSAGES": "fr_FR"]).languages == ["sv_SE"])
        #expect(XDGDataDirectories(environment: [:]).languages == [])
        let entry = try DesktopEntry(bytes: Array("[Desktop Entry]\nName=Notes\nName[de]=Notizen\nName[fr_FR]=Bloc\n".utf8), source: "t.desktop")
        #expect(try entry.localizedString("Name", locales: ["de_AT", "fr_FR"]) == "Notizen")
        #expect(try entry.localizedString("Name", locales: ["es", "fr_FR.UTF-8"]) == "Bloc")
        #expect(try entry.localizedString("Name", locales: ["es"]) == "Notes")
    }

    /// Flatpak's export folders: appended when the environment lacks them
    /// (a systemd user service started without flatpak's profile script),
    /// user before system; where flatpak's profile script put them
    /// (before the rest of XDG_DATA_DIRS) they keep their place, once.
    @Test func flatpakExportFolders() {
        let bare = XDGDataDirectories(environment: ["XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/usr/share"])
        #expect(bare.directories == ["/d", "/usr/share", "/d/flatpak/exports/share", "/var/lib/flatpak/exports/share"])
        let profiled = XDGDataDirectories(environment: [
            "XDG_DATA_HOME": "/d",
            "XDG_DATA_DIRS": "/d/flatpak/exports/share:/var/lib/flatpak/exports/share/:/usr/local/share:/usr/share",
        ])
        #expect(profiled.directories == ["/d", "/d/flatpak/exports/share", "/var/lib/flatpak/exports/share", "/usr/local/share", "/usr/share"])
        let elsewhere = XDGDataDirectories(environment: ["XDG_DATA_HOME": "/d", "XDG_DATA_DIRS": "/usr/share"],
                                           flatpakSystemInstallation: "/srv/flatpak")
        #expect(elsewhere.directories.last == "/srv/flatpak/exports/share")
    }

    /// Apps installed with Flatpak, user-wide and system-wide, are found in
    /// the export folders with the Exec line flatpak wrote, though the
    /// environment names neither folder.
    /// X-Handoff-WebDomains (docs/agent.md §13): with the team, an entry may
    /// claim domains without declaring types; a bad domain is skipped with
    /// a warning naming it; without the team nothing is declared.
    @Test func webDomainsAreRead() throws {
        let data = DataFolders()
        let t = data.tree
        t.write("home/applications/org.example.Docs.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Docs
            Exec=docs %U
            X-Handoff-TeamIdentifier=TEAMD
            X-Handoff-WebDomains=*.Example.com;BAD DOMAIN;example.org;
            """)
        t.write("home/applications/org.example.NoTeam.desktop", """
            [Desktop Entry]
            Type=Application
            Name=No team
            Exec=noteam %U
            X-Handoff-WebDomains=example.net;
            """)
        let registry = InstalledApps(directories: data.directories)
        let docs = try #require(registry.apps.first { $0.bundleIdentifier == "org.example.Docs" })
        #expect(docs.manifest.webDomains.map(\.description) == ["*.example.com", "example.org"])
        #expect(docs.activityTypes.isEmpty)
        #expect(registry.warnings.contains { $0.contains("X-Handoff-WebDomains") && $0.contains("BAD DOMAIN") }, "\(registry.warnings)")
        #expect(!registry.apps.contains { $0.bundleIdentifier == "org.example.NoTeam" })
        #expect(registry.warnings.contains { $0.contains("org.example.NoTeam") && $0.contains("X-Handoff-TeamIdentifier") }, "\(registry.warnings)")
    }

    /// X-Handoff-Document-Activity-Type (docs/documents.md §6): the
    /// document type's activity type is continuable as if listed in
    /// X-Handoff-ActivityTypes, and the entry's MimeType= is what it
    /// covers; without the team nothing is declared; a bad type is a
    /// warning naming the key.
    @Test func documentActivityTypeIsRead() throws {
        let data = DataFolders()
        let t = data.tree
        t.write("home/applications/org.example.Writer.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Writer
            Exec=writer %U
            MimeType=application/vnd.oasis.opendocument.text;text/plain;
            X-Handoff-TeamIdentifier=TEAMW
            X-Handoff-ActivityTypes=org.example.Writer.browse;
            X-Handoff-Document-Activity-Type=org.example.Writer.document
            """)
        t.write("home/applications/org.example.Viewer.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Viewer
            Exec=viewer %f
            MimeType=image/png;
            X-Handoff-TeamIdentifier=TEAMV
            X-Handoff-Document-Activity-Type=org.example.Viewer.image
            """)
        t.write("home/applications/org.example.Bad.desktop", """
            [Desktop Entry]
            Type=Application
            Name=Bad
            Exec=bad %f
            X-Handoff-TeamIdentifier=TEAMB
            X-Handoff-ActivityTypes=org.example.Bad.edit;
            X-Handoff-Document-Activity-Type=
            """)
        t.write("home/applications/org.example.NoTeamDoc.desktop", """
            [Desktop Entry]
            Type=Application
            Name=No team
            Exec=noteam %f
            X-Handoff-Document-Activity-Type=org.example.NoTeamDoc.edit
            """)
        let registry = InstalledApps(directories: data.directories)
        let writer = try #require(registry.apps.first { $0.bundleIdentifier == "org.example.Writer" })
        #expect(writer.activityTypes == ["org.example.Writer.browse", "org.example.Writer.document"])
        #expect(writer.manifest.documentTypes == [DocumentType(activityType: "org.example.Writer.document",
                                                                mimeTypes: ["application/vnd.oasis.opendocument.text", "text/plain"])])
        // A document type alone, with the team, makes a Handoff app.
        let viewer = try #require(registry.apps.first { $0.bundleIdentifier == "org.example.Viewer" })
        #expect(viewer.activityTypes == ["org.example.Viewer.image"])
        #expect(viewer.manifest.documentTypes.first?.mimeTypes == ["image/png"])
        let bad = try #require(registry.apps.first { $0.bundleIdentifier == "org.example.Bad" })
        #expect(bad.activityTypes == ["org.example.Bad.edit"])
        #expect(registry.warnings.contains { $0.contains("org.example.Bad.desktop") && $0.contains("X-Handoff-Document-Activity-Type") }, "\(registry.warnings)")
        #expect(!registry.apps.contains { $0.bundleIdentifier == "org.example.NoTeamDoc" })
        #expect(registry.warnings.contains { $0.contains("org.example.NoTeamDoc") && $0.contains("X-Handoff-TeamIdentifier") }, "\(registry.warnings)")
    }

    @Test func findsAppsFlatpakExported() throws {
        let data = DataFolders()
        let t = data.tree
        let exec = "/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=notes --file-forwarding org.example.Notes @@u %U @@"
        t.write("home/flatpak/exports/share/applications/org.example.Notes.desktop",
                handoffEntry(types: "com.example.notes.edit;", exec: exec, "X-Flatpak=org.example.Notes"))
        t.write("flatpak/exports/share/applications/org.example.Calc.desktop",
                handoffEntry(types: "com.example.calc.compute;", exec: "/usr/bin/flatpak run --branch=stable --arch=x86_64 --command=calc org.example.Calc"))
        let registry = InstalledApps(directories: data.directories)
        #expect(registry.warnings.isEmpty, "\(registry.warnings)")
        let notes = try #require(registry.apps.first { $0.bundleIdentifier == "org.example.Notes" })
        #expect(notes.activityTypes == ["com.example.notes.edit"])
        #expect(notes.desktopFile == t.path("home/flatpak/exports/share/applications/org.example.Notes.desktop"))
        #expect(notes.exec?.arguments == ["/usr/bin/flatpak", "run", "--branch=stable", "--arch=x86_64", "--command=notes",
                                          "--file-forwarding", "org.example.Notes", "@@u", "@@"])
        let calc = try #require(registry.apps.first { $0.bundleIdentifier == "org.example.Calc" })
        #expect(calc.desktopFile == t.path("flatpak/exports/share/applications/org.example.Calc.desktop"))
        #expect(calc.dataDirectoryIndex > notes.dataDirectoryIndex)
    }

    @Test func scansPrecedenceAndRules() throws {
        let data = DataFolders()
        let t = data.tree
        // Precedence: the data home's entry wins the id.
        t.write("home/applications/org.example.Notes.desktop", handoffEntry(team: "TEAMHOME", types: "com.example.notes.edit;", "Name[de]=Notizen"))
        t.write("dir1/applications/org.example.Notes.desktop", handoffEntry(team: "TEAMSYS"))
        // Hidden in the home hides the system entry.
        t.write("home/applications/org.example.Gone.desktop", "[Desktop Entry]\nHidden=true\n")
        t.write("dir2/applications/org.example.Gone.desktop", handoffEntry())
        // Subdirectory: the id joins with "-".
        t.write("dir1/applications/vendor/org.example.Sub.desktop", handoffEntry(types: "com.example.sub;"))
        t.write("dir1/applications/org.example.Plain.desktop", "[Desktop Entry]\nType=Application\nExec=plain\n")
        t.write("dir1/applications/org.example.NoTeam.desktop", "[Desktop Entry]\nType=Application\nExec=a\nX-Handoff-ActivityTypes=x.y;\n")
        t.write("dir1/applications/org.example.BadTeam.desktop", handoffEntry(team: "not-a-team"))
        t.write("dir1/applications/org.example.NoTypes.desktop", "[Desktop Entry]\nType=Application\nExec=a\nX-Handoff-TeamIdentifier=TEAMA\n")
        t.write("dir1/applications/org.example.SomeBadTypes.desktop", handoffEntry(types: "good.type;;bad\\ttype;"))
        t.write("dir1/applications/org.example.Explicit.desktop", handoffEntry("X-Handoff-BundleIdentifier=com.example.explicit"))
        t.write("dir1/applications/single.desktop", handoffEntry())
        t.write("dir1/applications/org.example.Broken.desktop", handoffEntry("Exec=twice"))
        t.write("dir1/applications/org.example.Link.desktop", handoffEntry().replacingOccurrences("Type=Application", "Type=Link"))
        t.write("dir1/applications/org.example.TryExecMissing.desktop", handoffEntry("TryExec=/nonexistent/app"))
        t.write("dir1/applications/org.example.TryExecPresent.desktop", handoffEntry("TryExec=sh"))
        t.write("dir1/applications/org.example.NoExec.desktop", "[Desktop Entry]\nType=Application\nX-Handoff-TeamIdentifier=TEAMA\nX-Handoff-ActivityTypes=a.b\n")
        t.write("dir1/applications/org.example.DBus.desktop", "[Desktop Entry]\nType=Application\nDBusActivatable=true\nX-Handoff-TeamIdentifier=TEAMA\nX-Handoff-ActivityTypes=a.b\n")
        t.write("dir1/applications/org.example.NoDisplay.desktop", handoffEntry("NoDisplay=true\nPath=/tmp"))
        t.write("dir1/applications/org.example.BadExec.desktop", handoffEntry(exec: "app $HOME"))
        t.write("dir1/applications/README.txt", handoffEntry())
        t.write("dir2/applications/org.example.DupBundle.desktop", handoffEntry("X-Handoff-BundleIdentifier=org.example.Notes"))
        // Manifests: XML and binary, one misnamed, one naming no entry.
        t.write("dir2/applications/org.example.Manifested.desktop", "[Desktop Entry]\nType=Application\nExec=manifested\n")
        t.write("dir2/handoff/org.example.Manifested.plist", manifestXML(bundle: "org.example.Manifested", types: ["com.example.manifested.view"], entry: "org.example.Manifested.desktop"))
        t.write("dir2/applications/org.example.Binary.desktop", "[Desktop Entry]\nType=Application\nExec=binary\nX-Handoff-TeamIdentifier=IGNORED\n")
        t.write("dir2/handoff/org.example.Binary.plist", BinaryPropertyList.encode(.dictionary([
            "CFBundleIdentifier": .string("org.example.Binary"), "HandoffTeamIdentifier": .string("TEAMB"),
            "NSUserActivityTypes": .array([.string("com.example.binary")]), "HandoffDesktopEntry": .string("org.example.Binary"),
        ])))
        t.write("dir2/handoff/org.example.Misnamed.plist", manifestXML(bundle: "org.example.Other", types: ["a.b"], entry: "org.example.Manifested.desktop"))
        t.write("dir2/handoff/org.example.Orphan.plist", manifestXML(bundle: "org.example.Orphan", types: ["a.b"], entry: "org.example.Missing.desktop"))
        t.write("dir2/handoff/org.example.NoEntry.plist", manifestXML(bundle: "org.example.NoEntry", types: ["a.b"], entry: nil))

        let registry = InstalledApps(directories: data.directories)
        let byID = Dictionary(uniqueKeysWithValues: registry.apps.map { ($0.desktopID, $0) })
        #expect(Set(byID.keys) == [
            "org.example.Notes.desktop", "vendor-org.example.Sub.desktop", "org.example.SomeBadTypes.desktop",
            "org.example.Explicit.desktop", "org.example.TryExecPresent.desktop", "org.example.DBus.desktop",
            "org.example.NoDisplay.desktop", "org.example.Manifested.desktop", "org.example.Binary.desktop",
        ])
        let notes = try #require(byID["org.example.Notes.desktop"])
        #expect(notes.teamIdentifier == "TEAMHOME" && notes.activityTypes == ["com.example.notes.edit"])
        #expect(notes.desktopFile == t.path("home/applications/org.example.Notes.desktop"))
        #expect(notes.dataDirectoryIndex == 0 && notes.bundleIdentifier == "org.example.Notes")
        #expect(notes.name == "Notizen" && notes.declaredBy == .desktopEntry)
        #expect(notes.exec?.arguments == ["app"] && !notes.dbusActivatable && !notes.noDisplay)
        #expect(byID["vendor-org.example.Sub.desktop"]?.bundleIdentifier == "vendor-org.example.Sub")
        #expect(byID["vendor-org.example.Sub.desktop"]?.dataDirectoryIndex == 1)
        #expect(byID["org.example.SomeBadTypes.desktop"]?.activityTypes == ["good.type"])
        #expect(byID["org.example.Explicit.desktop"]?.bundleIdentifier == "com.example.explicit")
        let dbus = try #require(byID["org.example.DBus.desktop"])
        #expect(dbus.dbusActivatable && dbus.exec == nil)
        #expect(byID["org.example.NoDisplay.desktop"]?.noDisplay == true)
        #expect(byID["org.example.NoDisplay.desktop"]?.workingDirectory == "/tmp")
        let manifested = try #require(byID["org.example.Manifested.desktop"])
        #expect(manifested.declaredBy == .manifest(t.path("dir2/handoff/org.example.Manifested.plist")))
        #expect(manifested.teamIdentifier == "TEAMM" && manifested.activityTypes == ["com.example.manifested.view"])
        #expect(manifested.exec?.arguments == ["manifested"] && manifested.dataDirectoryIndex == 2)
        #expect(byID["org.example.Binary.desktop"]?.teamIdentifier == "TEAMB")

        let warnings = registry.warnings
        func warned(_ file: String, _ text: String, sourceLine: Int? = nil) {
            let prefix = t.path(file) + (sourceLine.map { ":\($0):" } ?? ":")
            #expect(warnings.contains { $0.hasPrefix(prefix) && $0.contains(text) }, "no warning \(prefix) … \(text) in \(warnings)")
        }
        warned("dir1/applications/org.example.NoTeam.desktop", "X-Handoff-ActivityTypes: no X-Handoff-TeamIdentifier", sourceLine: 4)
        warned("dir1/applications/org.example.BadTeam.desktop", "X-Handoff-TeamIdentifier: team identifier \"not-a-team\"", sourceLine: 5)
        warned("dir1/applications/org.example.NoTypes.desktop", "declares no valid activity type", sourceLine: 4)
        warned("dir1/applications/org.example.SomeBadTypes.desktop", "activity type \"\" is empty", sourceLine: 6)
        warned("dir1/applications/org.example.SomeBadTypes.desktop", "contains a control character", sourceLine: 6)
        warned("dir1/applications/single.desktop", "gives bundle identifier \"single\", which is not reverse-DNS")
        warned("dir1/applications/org.example.Broken.desktop", "Exec appears twice in [Desktop Entry] (first on line 4)", sourceLine: 7)
        warned("dir1/applications/org.example.Link.desktop", "Type: \"Link\", not Application", sourceLine: 2)
        warned("dir1/applications/org.example.TryExecMissing.desktop", "TryExec: \"/nonexistent/app\" is not an executable file", sourceLine: 7)
        warned("dir1/applications/org.example.NoExec.desktop", "no Exec (and no DBusActivatable=true)")
        warned("dir1/applications/org.example.BadExec.desktop", "Exec: \"$\" outside quotes", sourceLine: 4)
        warned("dir2/applications/org.example.DupBundle.desktop", "bundle identifier org.example.Notes is already declared by \(t.path("home/applications/org.example.Notes.desktop"))")
        warned("dir2/applications/org.example.Binary.desktop", "X-Handoff-TeamIdentifier: ignored: the app is declared by", sourceLine: 4)
        warned("dir2/handoff/org.example.Misnamed.plist", "the file must be named org.example.Other.plist")
        warned("dir2/handoff/org.example.Orphan.plist", "names org.example.Missing.desktop, which is in no applications folder")
        warned("dir2/handoff/org.example.NoEntry.plist", "no HandoffDesktopEntry string")
        // Not Handoff apps, hidden ones and other files say nothing.
        for quiet in ["Plain", "Gone", "README", "org.example.Notes.desktop:", "TryExecPresent", "DBus.desktop", "NoDisplay"] {
            #expect(!warnings.contains { $0.contains(quiet) && !$0.contains("DupBundle") }, "\(quiet): \(warnings)")
        }
        #expect(warnings.count == 16, "\(warnings)")
    }

    /// A manifest read as Apple's tools read an Info.plist: a repeated key
    /// keeps its last value (HandoffDesktopEntry included), with a warning
    /// naming the manifest's path.
    @Test func manifestWithARepeatedKey() throws {
        let data = DataFolders()
        let t = data.tree
        t.write("dir1/applications/org.example.Second.desktop", "[Desktop Entry]\nType=Application\nExec=second\n")
        t.write("dir1/handoff/org.example.Repeats.plist", """
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>CFBundleIdentifier</key><string>org.example.Repeats</string>
            <key>HandoffTeamIdentifier</key><string>TEAMM</string>
            <key>NSUserActivityTypes</key><array><string>com.example.repeats.view</string></array>
            <key>HandoffDesktopEntry</key><string>org.example.First.desktop</string>
            <key>HandoffDesktopEntry</key><string>org.example.Second.desktop</string>
            </dict></plist>
            """)
        let registry = InstalledApps(directories: data.directories)
        let app = try #require(registry.apps.first { $0.bundleIdentifier == "org.example.Repeats" })
        #expect(app.desktopID == "org.example.Second.desktop")
        #expect(app.exec?.arguments == ["second"])
        #expect(registry.warnings == ["\(t.path("dir1/handoff/org.example.Repeats.plist")): line 7, column 25: the key \"HandoffDesktopEntry\" appears twice in one <dict>: the last value is used"])
    }

    @Test func candidatesInOrder() {
        let data = DataFolders()
        let t = data.tree
        t.write("home/applications/org.example.Zeta.desktop", handoffEntry())
        t.write("dir1/applications/org.example.Beta.desktop", handoffEntry())
        t.write("dir1/applications/org.example.Alpha.desktop", handoffEntry(types: "com.example.shared;com.example.other"))
        t.write("dir2/applications/org.example.Other.desktop", handoffEntry(team: "TEAMB"))
        let registry = InstalledApps(directories: data.directories)
        #expect(registry.warnings == [])
        #expect(registry.apps.map(\.bundleIdentifier) == ["org.example.Zeta", "org.example.Alpha", "org.example.Beta", "org.example.Other"])
        #expect(registry.apps(continuing: "TEAMA", type: "com.example.shared").map(\.bundleIdentifier)
                == ["org.example.Zeta", "org.example.Alpha", "org.example.Beta"])
        #expect(registry.apps(continuing: "TEAMA", type: "com.example.shared", preferring: "org.example.Beta").map(\.bundleIdentifier)
                == ["org.example.Beta", "org.example.Zeta", "org.example.Alpha"])
        #expect(registry.apps(continuing: "TEAMA", type: "com.example.other").map(\.bundleIdentifier) == ["org.example.Alpha"])
        #expect(registry.apps(continuing: "TEAMB", type: "com.example.shared").map(\.bundleIdentifier) == ["org.example.Other"])
        #expect(registry.apps(continuing: "teama", type: "com.example.shared").isEmpty)
        #expect(registry.apps(continuing: "TEAMA", type: "com.example.Shared").isEmpty)
        #expect(registry.app(bundleIdentifier: "org.example.Beta")?.desktopID == "org.example.Beta.desktop")
        #expect(registry.app(bundleIdentifier: "org.example.Nope") == nil)
    }

    @Test func rescanSeesChangesAndWarnsOnce() {
        let data = DataFolders()
        let t = data.tree
        var registry = InstalledApps(directories: data.directories)
        #expect(registry.apps.isEmpty && registry.warnings.isEmpty)

        t.write("dir1/applications/org.example.Notes.desktop", handoffEntry(types: "a.one;"))
        #expect(registry.rescan() == [])
        #expect(registry.apps.map(\.activityTypes) == [["a.one"]])

        // A change of size (and ctime) is noticed.
        t.write("dir1/applications/org.example.Notes.desktop", handoffEntry(types: "a.one;a.two;"))
        #expect(registry.rescan() == [])
        #expect(registry.apps.map(\.activityTypes) == [["a.one", "a.two"]])

        let broken = t.write("dir2/applications/org.example.Broken.desktop", handoffEntry(team: ""))
        let first = registry.rescan()
        #expect(first.count == 1 && first[0].hasPrefix(broken + ":5:"), "\(first)")
        #expect(registry.rescan() == [], "said again")
        #expect(registry.warnings == first)

        // The data home hides the entry; then the entry goes.
        t.write("home/applications/org.example.Notes.desktop", "[Desktop Entry]\nHidden=true\n")
        registry.rescan()
        #expect(registry.apps.isEmpty)
        t.remove("home/applications/org.example.Notes.desktop")
        registry.rescan()
        #expect(registry.apps.count == 1)
        t.remove("dir1/applications/org.example.Notes.desktop")
        t.remove("dir2/applications/org.example.Broken.desktop")
        #expect(registry.rescan() == [])
        #expect(registry.apps.isEmpty && registry.warnings.isEmpty)

        // A manifest added later names an entry that had no Handoff keys.
        t.write("dir1/applications/org.example.Late.desktop", "[Desktop Entry]\nType=Application\nExec=late\n")
        registry.rescan()
        #expect(registry.apps.isEmpty)
        t.write("home/handoff/org.example.Late.plist", manifestXML(bundle: "org.example.Late", types: ["late.type"], entry: "org.example.Late.desktop"))
        registry.rescan()
        #expect(registry.apps.map(\.bundleIdentifier) == ["org.example.Late"])
    }

    @Test func boundsOnFiles() {
        let data = DataFolders()
        let t = data.tree
        t.write("dir1/applications/org.example.Huge.desktop", handoffEntry() + "\n" + String(repeating: "# padding\n", count: 7000))
        t.write("dir1/applications/a/b/c/d/org.example.Deep.desktop", handoffEntry())
        t.write("dir1/applications/a/b/c/d/e/org.example.TooDeep.desktop", handoffEntry())
        let registry = InstalledApps(directories: data.directories)
        #expect(registry.apps.map(\.desktopID) == ["a-b-c-d-org.example.Deep.desktop"])
        #expect(registry.warnings.count == 1)
        #expect(registry.warnings.first?.contains("over the 65536-byte limit") == true)
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var result = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            result += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
