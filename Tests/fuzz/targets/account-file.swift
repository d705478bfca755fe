// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: AccountStore.loadAccount, reading the account file (a pairing code and a newline)
// as a user's config directory holds it: the input is written to a private
// file of this process's directory, then loaded through the store's own
// checks and parser.
// (The store and the writing: Tests/fuzz/support/store-file.swift.)
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    writeStoreFile(store.accountPath, data, size)
    guard let key = try? store.loadAccount() else { return 0 }
    precondition((try? AccountKey(pairingCode: key.pairingCode)) == key, "a loaded key does not survive its own pairing code")
    return 0
}
