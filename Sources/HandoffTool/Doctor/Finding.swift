// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
/// One result of `handoff doctor`: how it stands, what was found, and what
/// to do about it.
struct Finding {
    enum Status: String {
        /// Works.
        case ok
        /// Might stop Handoff, or could not be checked.
        case warn
        /// Stops Handoff: doctor exits 1.
        case fail
    }

    /// Which check, e.g. "account.file" (stable, for scripts).
    let check: String
    let status: Status
    /// What was found, in a sentence.
    let what: String
    /// What to do; nil when nothing needs doing.
    let todo: String?

    static func ok(_ check: String, _ what: String) -> Finding {
        Finding(check: check, status: .ok, what: what, todo: nil)
    }

    static func warn(_ check: String, _ what: String, todo: String) -> Finding {
        Finding(check: check, status: .warn, what: what, todo: todo)
    }

    static func fail(_ check: String, _ what: String, todo: String) -> Finding {
        Finding(check: check, status: .fail, what: what, todo: todo)
    }

    var json: JSON {
        ["check": .string(check), "status": .string(status.rawValue), "what": .string(what), "todo": .string(todo)]
    }
}
