// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

/// The places documents are described by (docs/documents.md §2): the
/// folders found, and each configuration file that is there but could not
/// be read (its kind of place is then missing). Nothing to say when this
/// device has no place but home. The messages are not translated yet
/// (plain strings, not in po/handoff.pot).
enum DocumentsCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        let settings = (try? Profile.open()).map { SettingsStore(directory: $0.directory).load().settings } ?? HandoffSettings()
        let places = DocumentPlaces.load(settings: settings.documents)
        var findings = places.problems.map {
            Finding.warn("documents", $0, todo: "fix or remove that file; documents in its folders are described as in home, or brought whole")
        }
        let counts = [(places.settings.folders.count, "declared"), (places.syncthing.count, "Syncthing"), (places.cloud.count, "cloud")]
            .filter { $0.0 > 0 }.map { "\($0.0) \($0.1)" }
        if !counts.isEmpty {
            findings.append(.ok("documents", "documents are described by their place: \(counts.joined(separator: ", ")) folder(s)"))
        }
        return findings
    }
}
