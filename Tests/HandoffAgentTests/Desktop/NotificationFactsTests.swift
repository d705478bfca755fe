// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing
@testable import HandoffAgent

/// What the notifications take from the desktop (docs/agent.md §6): the
/// app's `Icon`, the entries that declare nothing, and the AppStream ids
/// "Install" is offered for.
@Suite struct NotificationFactsTests {
    @Test func theIconIsReadAsTheEntryGivesIt() throws {
        let data = DataFolders()
        let t = data.tree
        t.write("home/applications/org.example.Themed.desktop", handoffEntry(types: "com.example.a;", "Icon=accessories-text-editor"))
        t.write("home/applications/org.example.Path.desktop", handoffEntry(types: "com.example.b;", "Icon=/usr/share/pixmaps/path.png"))
        t.write("home/applications/org.example.None.desktop", handoffEntry(types: "com.example.c;", "Icon="))
        t.write("home/applications/org.example.Plain.desktop", "[Desktop Entry]\nType=Application\nName=Plain\nExec=plain\nDBusActivatable=true\n")
        let registry = InstalledApps(directories: data.directories)
        let icons = Dictionary(uniqueKeysWithValues: registry.apps.map { ($0.desktopID, $0.icon) })
        #expect(icons["org.example.Themed.desktop"] == "accessories-text-editor")
        #expect(icons["org.example.Path.desktop"] == "/usr/share/pixmaps/path.png")
        #expect(icons["org.example.None.desktop"] == .some(nil))
        #expect(registry.undeclared["org.example.Plain.desktop"] == t.path("home/applications/org.example.Plain.desktop"))
        #expect(registry.undeclared["org.example.Themed.desktop"] == nil)
    }

    @Test func installIsOfferedForReverseDNSIdsOnly() {
        #expect(AppStreamLink.url(for: "org.gnome.TextEditor") == "appstream://org.gnome.TextEditor")
        #expect(AppStreamLink.url(for: "com.example.my-app_2") == "appstream://com.example.my-app_2")
        for bad in ["", "app", "org.", ".org", "org..x", "1org.x", "org.x/y", "org.x y", "org.x?z=1", "orgé.x",
                    "a." + String(repeating: "b", count: 254)] {
            #expect(AppStreamLink.url(for: bad) == nil, "\(bad)")
        }
    }

    @Test func aRunningAppsTokenIsNotPassedWhenMalformed() {
        #expect(ActivationToken.checked("ok-token") == "ok-token")
        #expect(ActivationToken.checked("bad\ntoken") == nil)
        #expect(ApplicationActivator.platformData(activationToken: "t").map(\.0) == ["activation-token", "desktop-startup-id"])
    }
}
