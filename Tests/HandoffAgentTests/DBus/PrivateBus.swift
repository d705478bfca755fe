// SPDX-License-Identifier: MIT OR Apache-2.0
import FoundationEssentials
import HandoffAgent
import HandoffBase
@testable import HandoffDBus
import HandoffModel
import HandoffTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A private `dbus-daemon` for one test (its config, socket and service
/// directory in a temporary folder): never the person's session bus.
/// `stop()` kills it and removes the folder; call it in a `defer`.
final class PrivateBus {
    let folder: String
    let address: String
    let servicesFolder: String
    private let daemon: ChildProcess

    init() throws {
        var template = Array("/tmp/handoff-dbus-\(getpid())-XXXXXX".utf8CString)
        guard mkdtemp(&template) != nil else { throw TestFailure("mkdtemp: \(String(cString: strerror(errno)))") }
        folder = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        servicesFolder = folder + "/services"
        mkdir(servicesFolder, 0o700)
        let config = """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:path=\(folder)/bus</listen>
              <auth>EXTERNAL</auth>
              <servicedir>\(servicesFolder)</servicedir>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """
        try writeFile(folder + "/bus.conf", config)
        do {
            daemon = try ChildProcess.start("/usr/bin/dbus-daemon",
                                            ["--config-file=\(folder)/bus.conf", "--print-address=1", "--nofork"])
            address = try daemon.readLine(timeout: 60)
        } catch {
            removeTree(folder)
            throw error
        }
    }

    /// Installs a D-Bus service file: the bus starts `exec` when `name` is
    /// called and no one owns it.
    func installService(name: String, exec: [String]) throws {
        try writeFile("\(servicesFolder)/\(name).service", "[D-BUS Service]\nName=\(name)\nExec=\(exec.joined(separator: " "))\n")
    }

    func stop() {
        daemon.stop()
        removeTree(folder)
    }
}

/// The fake desktop of Tests/agent/fake_notifications.c on a private bus.
final class FakeDesktop {
    let log: String
    private let process: ChildProcess

    /// `arguments`: "--notifications", "--app NAME PATH", "--capabilities LIST".
    init(bus: PrivateBus, _ arguments: [String]) throws {
        log = "\(bus.folder)/fake-\(UInt32.random(in: 0...UInt32.max)).jsonl"
        process = try ChildProcess.start(try fakeDesktopProgram(),
                                         ["--address", bus.address, "--log", log] + arguments)
        let line = try process.readLine(timeout: 60)
        guard line == "ready" else { throw TestFailure("fake_notifications said '\(line)'") }
    }

    func stop() { process.stop() }

    var records: [Record] { FakeDesktop.records(in: log) }

    static func records(in path: String) -> [Record] {
        guard let text = try? readFile(path) else { return [] }
        return text.split(separator: "\n").compactMap { try? JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    /// One JSON line of the fake's log.
    struct Record: Decodable, Equatable {
        var call: String?
        var event: String?
        var id: UInt32?
        var pid: Int32?
        var app_name: String?
        var replaces_id: UInt32?
        var app_icon: String?
        var summary: String?
        var body: String?
        var actions: [String]?
        var hints: [String: Scalar]?
        var expire_timeout: Int32?
        var path: String?
        var destination: String?
        var platform_data: [String: Scalar]?
        var name: String?
        var mode: String?
        var pids: [Int32]?
    }

    enum Scalar: Decodable, Equatable {
        case int(Int64), string(String), bool(Bool)
        init(from decoder: Decoder) throws {
            let c = try decoder.singleValueContainer()
            if let b = try? c.decode(Bool.self) { self = .bool(b) }
            else if let i = try? c.decode(Int64.self) { self = .int(i) }
            else { self = .string(try c.decode(String.self)) }
        }
    }
}

/// The fake's binary: the one `make` built (HANDOFF_FAKE_NOTIFICATIONS),
/// else compiled here with cc and pkg-config into the package's .build
/// folder (again only when the source is newer).
func fakeDesktopProgram() throws -> String {
    try FakeProgram.shared.withLock { path in
        if let path { return path }
        if let built = getenv("HANDOFF_FAKE_NOTIFICATIONS").map({ String(cString: $0) }), access(built, X_OK) == 0 {
            path = built
            return built
        }
        let tests = String(#filePath.dropLast("HandoffAgentTests/DBus/PrivateBus.swift".count))
        let source = tests + "agent/fake_notifications.c"
        let output = tests + "../.build/fake_notifications"
        func modified(_ file: String) -> Int? {
            var info = stat()
            return stat(file, &info) == 0 ? info.st_mtim.tv_sec : nil
        }
        if let built = modified(output), let written = modified(source), built >= written, access(output, X_OK) == 0 {
            path = output
            return output
        }
        let partial = output + ".\(getpid())"
        let compile = try ChildProcess.start("/bin/sh", ["-c",
            "mkdir -p \"$(dirname '\(output)')\" && cc -std=c11 -O1 -o '\(partial)' '\(source)' $(pkg-config --cflags --libs libsystemd) 1>&2 && mv '\(partial)' '\(output)'"])
        guard compile.wait(timeout: 300) == 0, access(output, X_OK) == 0 else {
            throw TestFailure("could not build \(source) (needs cc and libsystemd-dev: scripts/install-deps.sh)")
        }
        path = output
        return output
    }
}

enum FakeProgram {
    static let shared = Locked<String?>(nil)
}

/// Runs `bus` the way the agent's loop does (poll its fd, events and
/// timeout, then process) until `done` holds or `timeout` seconds pass.
/// The poll is capped at 100 ms so `done` is also seen when it depends on
/// another process's file rather than on a message.
@discardableResult
func pump(_ bus: SessionBus, timeout: Double = 60, until done: () -> Bool) -> Bool {
    let end = monotonicNow() + timeout
    while !done() {
        guard monotonicNow() < end else { return false }
        var entry = pollfd(fd: bus.fd, events: bus.events, revents: 0)
        let wait = bus.timeoutMilliseconds
        _ = poll(&entry, 1, wait < 0 || wait > 100 ? 100 : wait)
        if !bus.process() && !done() { return false }
    }
    return true
}

/// `pump` for a source of the agent's loop (the launcher's bus).
func pump(_ source: any AgentLoopSource, timeout: Double = 60, until done: () -> Bool) -> Bool {
    let end = monotonicNow() + timeout
    while !done() {
        guard monotonicNow() < end else { return false }
        var entry = pollfd(fd: source.fd, events: source.pollEvents, revents: 0)
        let wait = source.timeoutMilliseconds
        _ = poll(&entry, 1, wait < 0 || wait > 100 ? 100 : wait)
        source.process()
    }
    return true
}

func monotonicNow() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func writeFile(_ path: String, _ text: String) throws {
    guard let file = fopen(path, "we") else { throw TestFailure("cannot write \(path)") }
    defer { fclose(file) }
    fputs(text, file)
}

func readFile(_ path: String) throws -> String {
    guard let file = fopen(path, "re") else { throw TestFailure("cannot read \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count <= 0 { break }
        bytes += chunk[..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}

func removeTree(_ path: String) {
    let child = try? ChildProcess.start("/bin/rm", ["-rf", path])
    _ = child?.wait(timeout: 60)
}
