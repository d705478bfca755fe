// SPDX-License-Identifier: MIT OR Apache-2.0
import CLinux
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// Applies a rename while the agent runs (docs/agent.md §6 "This
/// device's name"): inotify on the account directory (a rename over the
/// device file, as `AccountStore.saveDevice` writes it, is an event on the
/// directory), then the file is read again and a new name goes to the
/// engine, which announces it at once (`ContinuityEngine.rename`), and to
/// the tray. Only the name: a changed id or role needs a restart (said
/// in the log). Loop thread (an `AgentLoopSource` of the agent's loop).
final class DeviceNameWatch: AgentLoopSource {
    private unowned let server: AgentServer
    private let store: AccountStore
    private(set) var fd: Int32 = -1
    /// The role the agent runs with (a changed one is only logged).
    private var saidRole = false

    /// Nil (logged) when the directory cannot be watched.
    static func start(server: AgentServer, directory: String) -> DeviceNameWatch? {
        let watch = DeviceNameWatch(server: server, store: AccountStore(directory: directory))
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE)
        guard fd >= 0, inotify_add_watch(fd, directory, mask) >= 0 else {
            if fd >= 0 { close(fd) }
            server.log("device", "renames apply at the next start: cannot watch \(directory): \(String(cString: strerror(errno)))")
            return nil
        }
        watch.fd = fd
        return watch
    }

    private init(server: AgentServer, store: AccountStore) {
        self.server = server
        self.store = store
    }

    var pollEvents: Int16 { Int16(POLLIN) }
    var timeoutMilliseconds: Int32 { -1 }

    func process() {
        guard fd >= 0, InotifyEvents.drain(fd).contains(where: { $0.name == "device" }) else { return }
        reload()
    }

    /// Reads the device file and applies its name; a file that does not
    /// read (being replaced, damaged) changes nothing.
    func reload() {
        guard let device = try? store.loadDevice(), device.id == server.identity.device.id else { return }
        if device.role != server.identity.device.role, !saidRole {
            saidRole = true
            server.log("device", "this device's role changed to \(device.role.name): it applies when the agent restarts")
        }
        let old = server.engine.deviceName
        guard (try? server.engine.rename(to: device.name)) == true else { return }
        server.log("renamed", "this device is now called \(device.name) (was \(old)); the other devices were told",
                   ["device": .string(device.name)])
        server.trayStateChanged()
    }

    func loopWillStop() {
        if fd >= 0 { close(fd) }
        fd = -1
    }
}

extension AgentServer {
    /// Applies `handoff device --name` while the agent runs: watches the
    /// device file in the account `directory` (`DeviceNameWatch`). Any thread.
    public func watchDeviceName(directory: String) {
        loop.post { [self] in
            guard let watch = DeviceNameWatch.start(server: self, directory: directory) else { return }
            self.sources.add(watch)
            // A rename made between reading the configuration and now.
            watch.reload()
        }
    }
}
