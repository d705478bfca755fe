// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// A socket systemd opened for the agent (socket activation,
/// sd_listen_fds(3)), read without libsystemd: `LISTEN_PID` names the
/// process the sockets are for, `LISTEN_FDS` how many there are (they start
/// at descriptor 3), `LISTEN_FDNAMES` their colon-separated names
/// (`FileDescriptorName=`, by default the socket unit's name).
///
/// Bounds: at most `maxDescriptors` descriptors; names only when there is
/// exactly one per descriptor, each at most 255 bytes (systemd's limit).
public struct ActivatedSocket: Equatable, Sendable {
    public let fd: Int32
    public let name: String

    public init(fd: Int32, name: String) {
        self.fd = fd
        self.name = name
    }

    public static let firstDescriptor: Int32 = 3
    public static let maxDescriptors = 16
    /// The name systemd gives the agent's socket (the unit's name).
    public static let agentSocketName = "handoff-agent.socket"

    /// The sockets `environment` passes to process `pid`: empty when it
    /// passes none or they are meant for another process (LISTEN_PID).
    /// Throws `.invalidValue` for variables systemd would never write.
    public static func parse(_ environment: [String: String], pid: Int32) throws(HandoffError) -> [ActivatedSocket] {
        guard let pidText = environment["LISTEN_PID"] else { return [] }
        guard let listenPID = decimal(pidText), listenPID > 0 else {
            throw HandoffError(.invalidValue, "LISTEN_PID is not a process id: '\(pidText.prefix(32))'")
        }
        guard listenPID == Int(pid) else { return [] }
        guard let countText = environment["LISTEN_FDS"] else { return [] }
        guard let count = decimal(countText) else {
            throw HandoffError(.invalidValue, "LISTEN_FDS is not a count: '\(countText.prefix(32))'")
        }
        guard count <= maxDescriptors else {
            throw HandoffError(.invalidValue, "LISTEN_FDS is \(count): at most \(maxDescriptors) sockets are taken")
        }
        var names = Array(repeating: "unknown", count: count)
        if let namesText = environment["LISTEN_FDNAMES"] {
            let given = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard given.count == count else {
                throw HandoffError(.invalidValue, "LISTEN_FDNAMES names \(given.count) sockets, LISTEN_FDS says \(count)")
            }
            guard given.allSatisfy({ $0.utf8.count <= 255 }) else {
                throw HandoffError(.invalidValue, "LISTEN_FDNAMES has a name longer than 255 bytes")
            }
            names = given
        }
        return names.enumerated().map { ActivatedSocket(fd: firstDescriptor + Int32($0.offset), name: $0.element) }
    }

    /// The agent's listening socket if systemd passed one: takes the
    /// variables out of the environment (children must not inherit them),
    /// marks the passed descriptors close-on-exec, closes those the agent
    /// does not use, and checks the one it uses is a listening AF_UNIX
    /// SOCK_SEQPACKET socket. Nil when not socket-activated. The one used:
    /// named `agentSocketName`, or the only one.
    public static func agentListener() throws(HandoffError) -> Int32? {
        var environment: [String: String] = [:]
        for name in ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"] {
            if let value = getenv(name) { environment[name] = String(cString: value) }
            unsetenv(name)
        }
        let sockets = try parse(environment, pid: getpid())
        guard !sockets.isEmpty else { return nil }
        for socket in sockets { _ = fcntl(socket.fd, F_SETFD, FD_CLOEXEC) }
        let chosen = sockets.count == 1 ? sockets[0] : sockets.first { $0.name == agentSocketName }
        for socket in sockets where socket.fd != chosen?.fd { Glibc.close(socket.fd) }
        guard let chosen else {
            throw HandoffError(.invalidValue, "systemd passed \(sockets.count) sockets, none named \(agentSocketName)")
        }
        try checkListening(chosen.fd)
        return chosen.fd
    }

    /// Throws unless `fd` is a listening AF_UNIX SOCK_SEQPACKET socket
    /// (what handoff-agent.socket's ListenSequentialPacket= makes).
    public static func checkListening(_ fd: Int32) throws(HandoffError) {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        guard let domain = option(SO_DOMAIN) else {
            throw HandoffError(.invalidValue, "descriptor \(fd) from systemd is not a socket")
        }
        guard domain == AF_UNIX, option(SO_TYPE) == Int32(SOCK_SEQPACKET.rawValue), option(SO_ACCEPTCONN) == 1 else {
            throw HandoffError(.invalidValue,
                               "descriptor \(fd) from systemd is not a listening Unix SOCK_SEQPACKET socket (ListenSequentialPacket=)")
        }
    }

    /// Digits only (no sign, no spaces), at most 10 of them.
    static func decimal(_ text: String) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 10,
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return Int(text)
    }
}
