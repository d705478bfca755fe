// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

extension AgentServer {
    /// The document portal's connection, made at the first grant (an agent
    /// whose apps never ask keeps none) and again when its bus went away.
    /// Loop thread.
    func documentPortalConnection() -> Result<DocumentPortal, HandoffError> {
        if let (portal, key) = documentPortal {
            if portal.bus.isConnected { return .success(portal) }
            sources.remove(key)
            documentPortal = nil
        }
        do throws(DBusError) {
            let portal = try DocumentPortal()
            documentPortal = (portal, sources.add(portal))
            return .success(portal)
        } catch {
            return .failure(HandoffError(.io, "the document portal cannot be asked: \(error.message)"))
        }
    }
}
