// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import HandoffRuntime

extension Launcher.Launch {
    /// For the log.
    var word: String {
        switch self {
        case .dbus: "dbus"
        case .process: "exec"
        case .processInstead: "exec-instead"
        }
    }
}

/// What CHOOSE did.
public enum ContinueChoice: Sendable, Equatable {
    /// CONTINUE went to the running app with this bundle id.
    case running(String)
    /// This installed app was launched; it gets CONTINUE when it connects.
    case launched(String)
    case webPage(URLReference)
}
