// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

extension AgentFeature {
    /// The history in its database (docs/history.md), with the age limit's
    /// one timer and, when the person turns it on, other devices'
    /// activities. A database that cannot be opened is logged and the
    /// agent carries on without history.
    static let history = AgentFeature(name: "history", start: { server, options in
        guard let path = options.history else { return }
        server.startHistory(path: path)
    }, stop: { server in
        server.history?.stop()
    })
}

extension AgentServer {
    /// Opens the history at `path` and watches its timers. Loop thread.
    func startHistory(path: String) {
        let engine = self.engine
        let loop = self.loop
        do throws(HandoffError) {
            let history = try AgentHistory(path: path, settings: { engine.settings },
                                           changed: { [weak self] in
                                               guard let server = self else { return }
                                               loop.post { server.trayStateChanged() }
                                           }) { [weak self] message in
                self?.log("history", message)
            }
            self.history = history
            // The age limit's one timer (docs/history.md "Bounds and retention").
            sources.add(history.expiry)
            // Other devices' activities, when the person turns that on.
            let watch = RemoteHistoryWatch(server: self, history: history)
            watch.start()
            sources.add(watch)
        } catch {
            log("history", "no history is kept: \(error.message)")
        }
    }
}
