// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: AccountStore.loadDevice, reading the device file (id=, name=, role= lines)
// as a user's config directory holds it: the input is written to a private
// file of this process's directory, then loaded through the store's own
// checks and parser.
// (The store and the writing: Tests/fuzz/support/store-file.swift.)
@testable import HandoffContinuity

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    writeStoreFile(store.devicePath, data, size)
    guard let device = try? store.loadDevice() else { return 0 }
    precondition((try? AccountStore.parseDevice(String(decoding: AccountStore.deviceFile(device), as: UTF8.self), path: "-")) == device, "a loaded device does not survive being saved")
    return 0
}
