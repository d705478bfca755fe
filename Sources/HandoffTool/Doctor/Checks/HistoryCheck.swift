// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffJSON
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The history (docs/history.md): whether its database can be read and
/// by this release, how big it is, how much disk is left for it, and what
/// the agent could not write (its STATUS counters `agent.historyDropped`,
/// `agent.historyFailed`, `agent.historyCoalesced`, `agent.historyReceived`,
/// when an agent serves).
enum HistoryCheck: DoctorCheck {
    /// Below this much free disk, writes are about to fail.
    static let lowDisk: Int64 = 16 << 20

    static func run(_ context: DoctorContext) -> [Finding] {
        guard let path = HistoryStore.defaultPath(ProcessEnvironment.current) else { return [] }
        var findings: [Finding] = []
        var info = stat()
        if lstat(path, &info) != 0 {
            let error = errno
            guard error == ENOENT else {
                return [.fail("history", tr("cannot read the history database {path}: {error}", ["path": path, "error": String(cString: strerror(error))]),
                              todo: tr("give the folder and the file back to this user (`ls -ld` them; folder 0700, file 0600)"))]
            }
            findings.append(.ok("history", tr("no history kept yet ({path})", ["path": path])))
        } else {
            do {
                let figures = try HistoryStore(path: path, create: false).figures()
                context.history = json(figures)
                findings.append(contentsOf: describe(figures, path: path))
            } catch {
                let todo = switch error.code {
                case .invalidState: tr("run the release that wrote it, or move {path} away (a new one is started)", ["path": path])
                case .malformedData: tr("move {path} away: the agent starts a new one", ["path": path])
                default: tr("check the file's owner and mode (0600) and its folder's (0700)")
                }
                findings.append(.fail("history", error.message, todo: todo))
            }
        }
        if let counts = agentCounts(context) { findings.append(counts) }
        return findings
    }

    static func describe(_ f: HistoryFigures, path: String) -> [Finding] {
        var out: [Finding] = [.ok("history", tr("{entries} entries, {size} on disk (schema {version}), {path}", [
            "entries": "\(f.entries)", "size": mebibytes(f.fileBytes + f.walBytes), "version": "\(f.schemaVersion)", "path": path]))]
        if let free = f.freeBytes, free < lowDisk {
            out.append(.warn("history.disk", tr("{free} free where the history is kept: new entries cannot be written{reserve}", [
                "free": mebibytes(free),
                "reserve": f.reserved ? "" : tr(" and no space is kept back for deleting")]),
                todo: tr("free some disk; `handoff history delete` works even on a full disk")))
        }
        return out
    }

    /// The agent's counts of records it could not write, when one serves.
    static func agentCounts(_ context: DoctorContext) -> Finding? {
        guard let source = context.source, source.agent != nil,
              let status = try? source.status(context.loop) else { return nil }
        let dropped = status.counters["agent.historyDropped"]
        let failed = status.counters["agent.historyFailed"]
        guard dropped != nil || failed != nil else { return nil }  // an older agent, or no history kept
        let coalesced = status.counters["agent.historyCoalesced"] ?? 0
        var report = context.history ?? [:]
        report["dropped"] = .int(dropped ?? 0)
        report["failed"] = .int(failed ?? 0)
        report["coalesced"] = .int(coalesced)
        report["received"] = .int(status.counters["agent.historyReceived"] ?? 0)
        context.history = report
        if (dropped ?? 0) + (failed ?? 0) == 0 {
            return .ok("history.writes", tr("the agent wrote every activity it was given ({coalesced} replaced by a newer state while waiting)", ["coalesced": "\(coalesced)"]))
        }
        return .warn("history.writes", tr("the agent could not keep {dropped} activities (too many waiting) and failed to write {failed} since it started",
                        ["dropped": "\(dropped ?? 0)", "failed": "\(failed ?? 0)"]),
                     todo: tr("see the agent's log (event history); a full disk or a slow one is the usual cause"))
    }

    /// The report's `history` (docs/cli.md).
    static func json(_ f: HistoryFigures) -> JSONObject {
        ["entries": .int(Int64(f.entries)), "payload_bytes": .int(f.payloadBytes), "file_bytes": .int(f.fileBytes),
         "wal_bytes": .int(f.walBytes), "schema": .int(Int64(f.schemaVersion)), "free_bytes": f.freeBytes.map(JSON.int) ?? .null,
         "reserved": .bool(f.reserved)]
    }

    static func mebibytes(_ bytes: Int64) -> String {
        let tenths = (bytes * 10 + (1 << 19)) >> 20
        return "\(tenths / 10).\(tenths % 10) MiB"
    }
}
