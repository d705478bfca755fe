// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
@testable import HandoffAgent

/// How a person knows an app where the agent names it (docs/agent.md §14):
/// from a desktop entry whenever one is known, the bundle id never.
struct AppLabelTests {
    @Test func theInstalledAppOfTheBundleFirst() {
        let folders = DataFolders()
        folders.tree.write("home/applications/org.example.Notes.desktop",
                           handoffEntry(types: "com.example.notes.edit;", "Icon=notes\nName[de]=Notizen\nX-Handoff-BundleIdentifier=org.example.Notes"))
        let apps = InstalledApps(directories: folders.directories)
        // LANG=de_DE.UTF-8 (DataFolders): the German name, as the menus show it.
        #expect(apps.label(bundle: "org.example.Notes") == AppLabel(name: "Notizen", icon: "notes"))
    }

    @Test func anEntryNamedLikeTheBundleThatDeclaresNothingForHandoff() {
        let folders = DataFolders()
        folders.tree.write("dir1/applications/org.example.Plain.desktop",
                           "[Desktop Entry]\nType=Application\nName=Plain Editor\nName[de]=Einfacher Editor\nIcon=/opt/plain.png\nExec=plain\n")
        folders.tree.write("dir1/applications/org.example.NoName.desktop", "[Desktop Entry]\nType=Application\nExec=x\n")
        let apps = InstalledApps(directories: folders.directories)
        #expect(apps.label(bundle: "org.example.Plain") == AppLabel(name: "Einfacher Editor", icon: "/opt/plain.png"))
        #expect(apps.label(bundle: "org.example.NoName") == nil, "an entry without a Name names nothing")
        #expect(apps.label(bundle: "") == nil)
    }

    @Test func elseTheAppThatWouldContinueIt() {
        let folders = DataFolders()
        folders.tree.write("home/applications/org.example.Opener.desktop",
                           handoffEntry(team: "TEAMA", types: "com.example.shared;", "Icon=opener"))
        let apps = InstalledApps(directories: folders.directories)
        #expect(apps.label(bundle: "org.libhandoff.handoff", team: "TEAMA", type: "com.example.shared")
                == AppLabel(name: "App", icon: "opener"))
        #expect(apps.label(bundle: "org.libhandoff.handoff", team: "OTHER", type: "com.example.shared") == nil)
        #expect(apps.label(bundle: "org.libhandoff.handoff") == nil, "no type: no app to continue it")
    }
}
