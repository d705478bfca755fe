// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// The apps suites hand activities between, as `Self.appA`…: A and B of two
/// teams, X and Y of one team, XY declaring both X's and Y's types. A
/// suite conforms to name them.
public protocol TeamApps {}

extension TeamApps {
    public static var appA: Manifest { teamApps.a }
    public static var appB: Manifest { teamApps.b }
    public static var appX: Manifest { teamApps.x }
    public static var appY: Manifest { teamApps.y }
    public static var appXY: Manifest { teamApps.xy }
}

private let teamApps = (
    a: try! Manifest(bundleIdentifier: "com.a.app", teamIdentifier: "TEAMA", activityTypes: ["com.a.edit"]),
    b: try! Manifest(bundleIdentifier: "com.b.app", teamIdentifier: "TEAMB", activityTypes: ["com.b.view"]),
    x: try! Manifest(bundleIdentifier: "com.example.x", teamIdentifier: "TEAM1", activityTypes: ["com.example.x.edit"]),
    y: try! Manifest(bundleIdentifier: "com.example.y", teamIdentifier: "TEAM1", activityTypes: ["com.example.y.edit"]),
    xy: try! Manifest(bundleIdentifier: "com.example.xy", teamIdentifier: "TEAM1",
                      activityTypes: ["com.example.x.edit", "com.example.y.edit"])
)
