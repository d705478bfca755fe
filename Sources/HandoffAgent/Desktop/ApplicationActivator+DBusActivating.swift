// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffDBus
import HandoffModel

/// The launcher's D-Bus activation goes through the agent's bus.
extension ApplicationActivator: DBusActivating {
    public func activateApplication(desktopID: String, activationToken: String?,
                                    completion: @escaping (Result<Void, HandoffError>) -> Void) throws(HandoffError) {
        do {
            try activate(desktopID: desktopID, activationToken: activationToken) { result in
                completion(result.mapError { HandoffError(activating: desktopID, $0) })
            }
        } catch {
            throw HandoffError(activating: desktopID, error)
        }
    }
}

extension HandoffError {
    /// No session bus is 4609 (the way to the app is unavailable); any
    /// other failure is 4608.
    init(activating desktopID: String, _ error: DBusError) {
        self.init(error.kind == .noBus ? .connectionUnavailable : .handoffFailed,
                  "D-Bus activation of \(desktopID): \(error)")
    }
}
