// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
import HandoffContinuity
import HandoffModel
import Testing

/// What the desktop's search answers, as data (docs/history.md "Searching
/// from the desktop"): the bounds on what callers send, narrowing, metas
/// and their words, activation. The bus side is tested end to end in
/// Tests/cli/test_history_search.py.
struct HistorySearchAnswersTests {
    final class Backend: HistorySearchBackend {
        var entries: [HistoryEntry] = []
        var queries: [String] = []
        var asked: [[Int64]] = []
        var continued: [Int64] = []
        var app: InstalledApp?

        func searchHistory(_ query: String, limit: Int) -> [HistoryEntry] {
            queries.append(query)
            return Array(entries.filter { e in query.split(separator: " ").allSatisfy { e.title.contains($0) } }.prefix(limit))
        }

        func historyEntries(_ ids: [Int64]) -> [HistoryEntry] {
            asked.append(ids)
            return ids.compactMap { id in entries.first { $0.id == id } }
        }

        func appLabel(for entry: HistoryEntry) -> AppLabel? {
            guard let app, app.bundleIdentifier == entry.bundle, let name = app.name else { return nil }
            return AppLabel(name: name, icon: app.icon)
        }

        func continueHistoryEntry(_ id: Int64, activationToken: String?) -> Result<ContinueChoice, HandoffError> {
            continued.append(id)
            return .failure(HandoffError(.connectionUnavailable, "test"))
        }
    }

    static let now: Int64 = 1_800_000_000_000

    static func entry(_ id: Int64, _ title: String, bundle: String = "org.example.Notes", secondsAgo: Int64 = 330) -> HistoryEntry {
        HistoryEntry(id: id, deviceID: [1, 2], deviceName: "Kitchen iMac", activityID: ActivityID(), bundle: bundle,
                     team: "T", activityType: "org.example.edit", persistentIdentifier: nil, title: title, keywords: [],
                     content: [], url: nil, firstSeen: now - secondsAgo * 1000, lastSeen: now - secondsAgo * 1000,
                     payloadSize: 0)
    }

    static func answers(_ backend: Backend, log: @escaping (String) -> Void = { _ in }) -> HistorySearchAnswers {
        var answers = HistorySearchAnswers(backend: backend, log: log)
        answers.now = { now }
        return answers
    }

    @Test func termsAreBoundedInNumberAndSizeAndResultsToTwenty() {
        let backend = Backend()
        backend.entries = (1...30).map { Self.entry($0, "pile \($0)") }
        let answers = Self.answers(backend)
        #expect(answers.resultIDs(["pile"]).count == HistorySearchAnswers.maxResults)
        _ = answers.resultIDs(Array(repeating: "t", count: 1000) + [String(repeating: "é", count: 10_000)])
        let query = backend.queries.last!
        #expect(query.split(separator: " ").count == HistorySearchAnswers.maxTerms)
        _ = answers.resultIDs([String(repeating: "é", count: 10_000)])
        #expect(backend.queries.last!.utf8.count <= HistorySearchAnswers.maxTermBytes)
    }

    @Test func subsearchKeepsOnlyPreviousResultsInTheNewOrder() {
        let backend = Backend()
        backend.entries = [Self.entry(1, "alpha beta"), Self.entry(2, "alpha"), Self.entry(3, "beta alpha")]
        let answers = Self.answers(backend)
        #expect(answers.narrowed(["h3", "h1", "h9"], ["alpha"]) == ["h1", "h3"])
        #expect(answers.narrowed([], ["alpha"]) == [])
    }

    @Test func metasLeaveUnknownAndMalformedIdsOutAndAreBounded() {
        let backend = Backend()
        backend.entries = [Self.entry(1, "Meeting notes"), Self.entry(2, "")]
        let answers = Self.answers(backend)
        let metas = answers.metas(["h9", "h1", "x1", "h", "h-1", "h2", "h1"])
        #expect(metas.map(\.id) == ["h1", "h2", "h1"])
        #expect(metas[0] == SearchResult(backend.entries[0], app: nil, nowMilliseconds: Self.now))
        #expect(metas[0].name == "Meeting notes" && metas[0].icon == "handoff")
        #expect(metas[0].description == "org.example.Notes · Kitchen iMac · 5 min ago")
        #expect(metas[1].name == "org.example.edit")
        _ = answers.metas((1...1000).map { "h\($0)" })
        #expect(backend.asked.last!.count == HistorySearchAnswers.maxIDs)
    }

    @Test func anInstalledAppGivesItsNameAndIconAndAPathIconIsNoThemeName() throws {
        let backend = Backend()
        let manifest = try Manifest(bundleIdentifier: "org.example.Notes", teamIdentifier: "T", activityTypes: ["org.example.edit"])
        backend.app = InstalledApp(desktopID: "org.example.Notes.desktop", desktopFile: "/x/org.example.Notes.desktop",
                                   dataDirectoryIndex: 0, manifest: manifest, declaredBy: .desktopEntry, name: "Notes",
                                   exec: nil, dbusActivatable: true, workingDirectory: nil, noDisplay: false,
                                   icon: "/opt/notes/icon.png")
        let result = SearchResult(Self.entry(1, String(repeating: "ü", count: 600)), app: backend.appLabel(for: Self.entry(1, "")),
                                  nowMilliseconds: Self.now)
        #expect(result.description == "Notes · Kitchen iMac · 5 min ago")
        #expect(result.icon == "/opt/notes/icon.png" && result.themedIcon == "handoff")
        #expect(result.name.utf8.count <= SearchResult.maxTextBytes && result.name.hasPrefix("üü"))
    }

    @Test func activationContinuesResultIdsOnlyAndLogsFailures() {
        let backend = Backend()
        var logged: [String] = []
        let answers = Self.answers(backend) { logged.append($0) }
        answers.activate("h7", activationToken: nil)
        answers.activate("7", activationToken: nil)
        answers.activate("h" + String(repeating: "9", count: 40), activationToken: nil)
        #expect(backend.continued == [7])
        #expect(logged.count == 3)
    }
}
