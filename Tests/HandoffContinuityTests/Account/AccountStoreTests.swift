// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import HandoffModel
import Testing
@testable import HandoffContinuity
import HandoffTestSupport

@Suite struct AccountStoreTests {
    typealias F = AccountFixtures

    /// A store in a directory that does not exist yet, two levels below a
    /// fresh temporary directory.
    func withStore<R>(_ body: (AccountStore, String) throws -> R) throws -> R {
        try F.withTemporaryDirectory { root in try body(AccountStore(directory: root + "/config/handoff"), root) }
    }

    @Test func paths() {
        let store = AccountStore(directory: "/x/handoff")
        #expect(store.directory == "/x/handoff")
        #expect(store.accountPath == "/x/handoff/account")
        #expect(store.devicePath == "/x/handoff/device")
    }

    @Test func accountRoundTrip() throws {
        try withStore { store, _ in
            let key = AccountKey.generate()
            try store.saveAccount(key)
            #expect(try store.loadAccount() == key)
            #expect(F.read(store.accountPath) == key.pairingCode + "\n")
            // Saving again replaces it.
            let other = AccountKey.generate()
            try store.saveAccount(other)
            #expect(try store.loadAccount() == other)
            #expect(F.entries(store.directory) == ["account"], "no temporary file is left behind")
        }
    }

    @Test func accountFileWithoutNewlineOrWithSpacesLoads() throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            F.write(store.accountPath, F.sequentialKey.pairingCode.lowercased())
            #expect(try store.loadAccount() == F.sequentialKey)
            F.write(store.accountPath, "  " + F.sequentialKey.pairingCode + " \n")
            #expect(try store.loadAccount() == F.sequentialKey)
        }
    }

    @Test func modesAfterSave() throws {
        try withStore { store, root in
            try store.saveAccount(F.sequentialKey)
            try store.saveDevice(DeviceIdentity.generate(name: "Desk"))
            #expect(F.mode(store.directory) == 0o700)
            #expect(F.mode(root + "/config") == 0o700, "missing parents are created 0700 too")
            #expect(F.mode(store.accountPath) == 0o600)
            #expect(F.mode(store.devicePath) == 0o600)
        }
    }

    @Test func modesAfterSaveUnderAPermissiveUmask() throws {
        try withStore { store, _ in
            let old = umask(0)
            defer { umask(old) }
            try store.saveAccount(F.sequentialKey)
            #expect(F.mode(store.directory) == 0o700)
            #expect(F.mode(store.accountPath) == 0o600)
        }
    }

    @Test(arguments: [0o644, 0o640, 0o604, 0o620, 0o601, 0o660, 0o666] as [mode_t])
    func filesOthersMayAccessAreRefused(mode: mode_t) throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            chmod(store.accountPath, mode)
            let error = #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(error?.code == .permission)
            #expect(error?.message.contains("chmod 600 \(store.accountPath)") == true)
            #expect(error?.message.contains("(mode 0\(String(mode, radix: 8)))") == true)
            if mode & 0o044 != 0 {
                #expect(error?.message.hasPrefix("\(store.accountPath) is readable by others") == true)
            }
            chmod(store.accountPath, 0o600)
            #expect(try store.loadAccount() == F.sequentialKey)
            // The same for the device file.
            try store.saveDevice(DeviceIdentity.generate(name: "Desk"))
            chmod(store.devicePath, mode)
            let device = #expect(throws: HandoffError.self) { try store.loadDevice() }
            #expect(device?.code == .permission)
            #expect(device?.message.contains("chmod 600 \(store.devicePath)") == true)
        }
    }

    @Test func exampleMessageForAReadableFile() throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            chmod(store.accountPath, 0o644)
            let error = #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(error?.message == "\(store.accountPath) is readable by others (mode 0644): run chmod 600 \(store.accountPath)")
        }
    }

    @Test func symbolicLinksAreRefused() throws {
        try withStore { store, root in
            try store.saveAccount(F.sequentialKey)
            let real = root + "/real-account"
            F.write(real, F.sequentialKey.pairingCode + "\n", mode: 0o600)
            unlink(store.accountPath)
            #expect(symlink(real, store.accountPath) == 0)
            let error = #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(error?.code == .permission)
            #expect(error?.message.contains("symbolic link") == true)
            // A dangling link too, rather than "no account".
            unlink(real)
            #expect((#expect(throws: HandoffError.self) { try store.loadAccount() })?.code == .permission)
        }
    }

    /// A linked account directory: reads and writes are refused, and
    /// `saveAccount` (what `account create --force` runs) writes nothing
    /// where the link points.
    @Test func aSymlinkedDirectoryIsRefusedForReadsAndWrites() throws {
        try F.withTemporaryDirectory { root in
            let elsewhere = root + "/elsewhere"
            #expect(mkdir(elsewhere, 0o700) == 0)
            let linked = AccountStore(directory: root + "/handoff")
            #expect(symlink(elsewhere, linked.directory) == 0)
            let store = AccountStore(directory: elsewhere)
            try store.saveAccount(F.sequentialKey)
            try store.saveDevice(DeviceIdentity.generate(name: "Desk"))

            for attempt in [{ _ = try linked.loadAccount() }, { _ = try linked.loadDevice() },
                            { try linked.saveAccount(AccountKey.generate()) },
                            { _ = try linked.loadOrCreateDevice(defaultName: "x") }] as [() throws -> Void] {
                let error = #expect(throws: HandoffError.self) { try attempt() }
                #expect(error?.code == .permission)
                #expect(error?.message.contains("is a symbolic link") == true)
                #expect(error?.message.contains("replace the link with a real directory") == true)
            }
            #expect(try store.loadAccount() == F.sequentialKey, "the key behind the link was not replaced")
            // With a trailing slash too (which would resolve the link).
            let slashed = AccountStore(directory: linked.directory + "/")
            #expect((#expect(throws: HandoffError.self) { try slashed.loadAccount() })?.code == .permission)
        }
    }

    @Test(arguments: [0o720, 0o702, 0o777, 0o730] as [mode_t])
    func aDirectoryOthersMayWriteIsRefused(mode: mode_t) throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            chmod(store.directory, mode)
            let error = #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(error?.code == .permission)
            #expect(error?.message.contains("chmod 700 \(store.directory)") == true)
            #expect(error?.message.contains("(mode 0\(String(mode, radix: 8)))") == true)
            #expect((#expect(throws: HandoffError.self) { try store.saveAccount(F.sequentialKey) })?.code == .permission)
        }
    }

    @Test(arguments: [0o750, 0o755, 0o705] as [mode_t])
    func aDirectoryOthersMayOnlyReadIsAccepted(mode: mode_t) throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            chmod(store.directory, mode)
            #expect(try store.loadAccount() == F.sequentialKey)
        }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a directory away"))
    func aDirectoryOfAnotherUserIsRefused() throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            #expect(chown(store.directory, 12345, 12345) == 0)
            let error = #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(error?.code == .permission)
            #expect(error?.message.contains("belongs to user id 12345") == true)
            #expect(error?.message.contains("XDG_CONFIG_HOME") == true)
        }
    }

    @Test(.enabled(if: geteuid() == 0, "only root can give a file away"))
    func filesOfOtherUsersAreRefused() throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            #expect(chown(store.accountPath, 12345, 12345) == 0)
            let error = #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(error?.code == .permission)
            #expect(error?.message.contains("belongs to user id 12345") == true)
        }
    }

    @Test func missingFilesAreNotFound() throws {
        try withStore { store, _ in
            let account = #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(account?.code == .notFound)
            #expect(account?.message.contains("no account yet") == true)
            #expect(account?.message.contains("`handoff account create`") == true)
            #expect(account?.message.contains("`handoff account join CODE`") == true)
            let device = #expect(throws: HandoffError.self) { try store.loadDevice() }
            #expect(device?.code == .notFound)
        }
    }

    @Test func garbageIsMalformed() throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            var symbols = Array(F.sequentialKey.pairingCode)
            symbols[3] = symbols[3] == "A" ? "B" : "A"
            let garbage: [[UInt8]] = [
                [],
                Array("hello\n".utf8),
                Array(String(symbols).utf8),  // a typo
                Array((F.sequentialKey.pairingCode + "\n\n").utf8),
                [0xff, 0xfe, 0x00, 0x41],  // not UTF-8
                Array(AccountKey.generate().bytes),  // raw key bytes
            ]
            for bytes in garbage {
                F.write(store.accountPath, bytes)
                let error = #expect(throws: HandoffError.self, "\(bytes)") { try store.loadAccount() }
                #expect(error?.code == .malformedData, "\(bytes): \(error?.message ?? "")")
            }
        }
    }

    @Test func filesOver4KiBAreRefused() throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            F.write(store.accountPath, F.sequentialKey.pairingCode + String(repeating: " ", count: 4096))
            let error = #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(error?.code == .malformedData)
            #expect(error?.message.contains("4096") == true)
            // 4096 bytes exactly is read (and here is a valid code).
            let code = F.sequentialKey.pairingCode + "\n"
            F.write(store.accountPath, String(repeating: " ", count: 4096 - code.utf8.count) + code)
            #expect(try store.loadAccount() == F.sequentialKey)
        }
    }

    @Test func aDirectoryInPlaceOfTheFileIsAnError() throws {
        try withStore { store, _ in
            try store.saveAccount(F.sequentialKey)
            unlink(store.accountPath)
            mkdir(store.accountPath, 0o700)
            #expect(throws: HandoffError.self) { try store.loadAccount() }
            #expect(throws: HandoffError.self) { try store.saveAccount(F.sequentialKey) }
            #expect(F.entries(store.directory) == ["account"], "no temporary file is left behind")
        }
    }

    @Test func aFileInPlaceOfTheDirectoryIsAnIOError() throws {
        try F.withTemporaryDirectory { root in
            F.write(root + "/handoff", "not a directory")
            let store = AccountStore(directory: root + "/handoff")
            let error = #expect(throws: HandoffError.self) { try store.saveAccount(F.sequentialKey) }
            #expect(error?.code == .io)
            #expect(error?.message.contains("is not a directory") == true)
        }
    }

    @Test func deviceRoundTripAndFormat() throws {
        try withStore { store, _ in
            let device = try DeviceIdentity(id: "00112233445566778899aabbccddeeff", name: "Kitchen = laptop ✓", role: .sendOnly)
            try store.saveDevice(device)
            #expect(try store.loadDevice() == device)
            #expect(F.read(store.devicePath) == "id=00112233445566778899aabbccddeeff\nname=Kitchen = laptop ✓\nrole=send-only\n")
            // Order, missing final newline and unknown keys do not matter.
            F.write(store.devicePath, "role=full\nfuture=1\nname=Desk\nid=00112233445566778899aabbccddeeff")
            #expect(try store.loadDevice() == DeviceIdentity(id: "00112233445566778899aabbccddeeff", name: "Desk", role: .full))
        }
    }

    @Test func deviceGarbageIsMalformed() throws {
        try withStore { store, _ in
            try store.saveDevice(DeviceIdentity.generate(name: "Desk"))
            let id = "00112233445566778899aabbccddeeff"
            let garbage = [
                "", "hello", "id=\(id)\nname=Desk\n", "id=\(id)\nrole=full\n", "name=Desk\nrole=full\n",
                "id=\(id)\nname=Desk\nrole=watch\n", "id=XYZ\nname=Desk\nrole=full\n",
                "id=\(id.uppercased())\nname=Desk\nrole=full\n", "id=\(id)\nname=\nrole=full\n",
                "id=\(id)\nid=\(id)\nname=Desk\nrole=full\n", "id=\(id)\nname=Desk\rX\nrole=full\n",
            ]
            for text in garbage {
                F.write(store.devicePath, text)
                let error = #expect(throws: HandoffError.self, "\(text)") { try store.loadDevice() }
                #expect(error?.code == .malformedData, "\(text): \(error?.message ?? "")")
            }
        }
    }

    @Test func savingAnInvalidDeviceIsRefused() throws {
        try withStore { store, _ in
            var device = try DeviceIdentity.generate(name: "Desk")
            device.name = "two\nlines"
            let error = #expect(throws: HandoffError.self) { try store.saveDevice(device) }
            #expect(error?.code == .invalidValue)
            #expect(F.mode(store.devicePath) == nil)
        }
    }

    @Test func deviceIsCreatedOnceAndStable() throws {
        try withStore { store, _ in
            let first = try store.loadOrCreateDevice(defaultName: "Kitchen laptop")
            #expect(first.name == "Kitchen laptop")
            #expect(first.role == .full)
            #expect(F.mode(store.devicePath) == 0o600)
            let second = try store.loadOrCreateDevice(defaultName: "Another name")
            #expect(second == first)
            #expect(try store.loadDevice() == first)
            #expect(try AccountStore(directory: store.directory).loadOrCreateDevice(defaultName: "x") == first)
            #expect(F.entries(store.directory) == ["device"])
            // A renamed device keeps its id.
            var renamed = first
            renamed.name = "Desk"
            try store.saveDevice(renamed)
            #expect(try store.loadOrCreateDevice(defaultName: "Kitchen laptop") == renamed)
        }
    }

    @Test func concurrentFirstUseAgreesOnOneDevice() async throws {
        try await F.withTemporaryDirectoryAsync { root in
            let store = AccountStore(directory: root + "/handoff")
            let ids = try await withThrowingTaskGroup(of: String.self) { group in
                for i in 0..<16 {
                    group.addTask { try store.loadOrCreateDevice(defaultName: "racer \(i)").id }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(ids.count == 1)
            #expect(try ids.first == store.loadDevice().id)
            #expect(F.entries(store.directory) == ["device"])
        }
    }

    @Test func loadOrCreateDoesNotHideOtherErrors() throws {
        try withStore { store, _ in
            try store.saveDevice(DeviceIdentity.generate(name: "Desk"))
            chmod(store.devicePath, 0o644)
            let error = #expect(throws: HandoffError.self) { try store.loadOrCreateDevice(defaultName: "x") }
            #expect(error?.code == .permission)
            F.write(store.devicePath, "garbage")
            #expect((#expect(throws: HandoffError.self) { try store.loadOrCreateDevice(defaultName: "x") })?.code == .malformedData)
        }
    }

    @Test func defaultNamesAreMadeValid() throws {
        try withStore { store, _ in
            let device = try store.loadOrCreateDevice(defaultName: "\n\t")
            #expect(device.name == "Linux")
        }
    }
}

/// Changes the process environment: one test at a time.
@Suite(.serialized) struct AccountDirectoryTests {
    func withEnvironment<R>(_ values: [String: String?], _ body: () throws -> R) rethrows -> R {
        var saved: [String: String?] = [:]
        for (name, value) in values {
            saved[name] = getenv(name).map { String(cString: $0) }
            if let value { setenv(name, value, 1) } else { unsetenv(name) }
        }
        defer {
            for (name, value) in saved {
                if let value { setenv(name, value, 1) } else { unsetenv(name) }
            }
        }
        return try body()
    }

    @Test func xdgConfigHomeIsRespected() throws {
        try withEnvironment(["XDG_CONFIG_HOME": "/tmp/handoff-xdg-test", "HOME": "/home/someone"]) { () throws in
            #expect(try AccountStore.defaultDirectory() == "/tmp/handoff-xdg-test/handoff")
        }
        try withEnvironment(["XDG_CONFIG_HOME": "/tmp/handoff-xdg-test/", "HOME": "/home/someone"]) { () throws in
            #expect(try AccountStore.defaultDirectory() == "/tmp/handoff-xdg-test/handoff")
        }
    }

    @Test func homeIsTheFallback() throws {
        for xdg in [nil, "", "relative/config"] as [String?] {
            try withEnvironment(["XDG_CONFIG_HOME": xdg, "HOME": "/home/someone"]) { () throws in
                #expect(try AccountStore.defaultDirectory() == "/home/someone/.config/handoff")
            }
        }
    }

    @Test func neitherSetIsAClearError() throws {
        try withEnvironment(["XDG_CONFIG_HOME": nil, "HOME": nil]) { () throws in
            let error = #expect(throws: HandoffError.self) { try AccountStore.defaultDirectory() }
            #expect(error?.code == .invalidState)
            #expect(error?.message.contains("HOME") == true)
        }
    }
}
