// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

/// The person's account and this device's identity, from the account
/// directory ($XDG_CONFIG_HOME/handoff, else ~/.config/handoff), through
/// the library's AccountStore: it refuses a key file others may read.
struct Profile {
    let store: AccountStore

    static func open() throws(HandoffError) -> Profile {
        Profile(store: AccountStore(directory: try AccountStore.defaultDirectory()))
    }

    var directory: String { store.directory }

    func account() throws(HandoffError) -> AccountKey {
        try store.loadAccount()
    }

    /// The account, or nil when there is none yet (other errors thrown).
    func existingAccount() throws(HandoffError) -> AccountKey? {
        do throws(HandoffError) {
            return try store.loadAccount()
        } catch {
            if error.code == .notFound { return nil }
            throw error
        }
    }

    /// This device's identity, created on first use (named by `DefaultDeviceName`).
    func device() throws(HandoffError) -> DeviceIdentity {
        try store.loadOrCreateDevice(defaultName: DefaultDeviceName.current())
    }
}

extension AccountKey {
    /// The public account ID, safe to print.
    var id: String { derived.accountID }
}
