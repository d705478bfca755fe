// SPDX-License-Identifier: MIT OR Apache-2.0
#if canImport(Glibc)
import Glibc
#endif

/// The name a new device identity gets (docs/PROTOCOL.md §4 "Device
/// names"): what the person called the machine, else who uses it and what
/// it is — names two fresh installs on the same image ("vm", "localhost")
/// would not share.
///
/// 1. `PRETTY_HOSTNAME` in /etc/machine-info (what `hostnamectl
///    set-hostname --pretty` writes, and GNOME's "Device Name"),
/// 2. else "<real name or login>'s <chassis>": the real name is the first
///    comma-separated field of the user's GECOS entry, else the login; the
///    chassis is `CHASSIS` in /etc/machine-info, else the firmware's
///    /sys/class/dmi/id/chassis_type, as laptop, desktop, tablet, server,
///    phone or computer,
/// 3. else the host name.
///
/// Always valid (`DeviceIdentity.validateName`): control characters
/// dropped, cut to 64 bytes on a character boundary.
/// `HANDOFF_TEST_MACHINE_INFO` and `HANDOFF_TEST_CHASSIS_TYPE` replace
/// the two file paths (tests only).
public enum DefaultDeviceName {
    public static func current() -> String {
        pretty() ?? automatic()
    }

    /// Rule 1: the name the person gave the machine (`PRETTY_HOSTNAME`), if any.
    public static func pretty() -> String? {
        let info = machineInfo(read(path("HANDOFF_TEST_MACHINE_INFO", "/etc/machine-info")) ?? "")
        guard let pretty = info["PRETTY_HOSTNAME"], !clean(pretty).isEmpty else { return nil }
        return DeviceIdentity.sanitizedName(pretty)
    }

    /// Rules 2 and 3: the name made up when the person gave none.
    public static func automatic() -> String {
        let info = machineInfo(read(path("HANDOFF_TEST_MACHINE_INFO", "/etc/machine-info")) ?? "")
        let chassis = info["CHASSIS"].map(chassisWord)
            ?? read(path("HANDOFF_TEST_CHASSIS_TYPE", "/sys/class/dmi/id/chassis_type")).flatMap { Int(clean($0)) }.map(chassisWord)
            ?? "computer"
        guard let person = personName() else { return DeviceIdentity.sanitizedName(currentHostName()) }
        return named(person: person, chassis: chassis)
    }

    /// "<person>'s <chassis>", the person's part cut so the whole fits.
    static func named(person: String, chassis: String) -> String {
        let suffix = "'s \(chassis)"
        let room = DeviceIdentity.maxNameLength - suffix.utf8.count
        var cut = ""
        for character in clean(person) {
            guard cut.utf8.count + character.utf8.count <= room else { break }
            cut.append(character)
        }
        return DeviceIdentity.sanitizedName(cut + suffix)
    }

    /// machine-info's shell-like assignments: KEY=VALUE, VALUE optionally
    /// in double or single quotes (backslash escapes in double quotes).
    static func machineInfo(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for line in text.split(separator: "\n").prefix(64) {
            let line = clean(String(line))
            guard !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else { continue }
            let key = String(line[..<equals])
            var value = Substring(line[line.index(after: equals)...])
            if value.count >= 2, let quote = value.first, quote == "\"" || quote == "'", value.last == quote {
                value = value.dropFirst().dropLast()
                if quote == "\"" {
                    var unescaped = "", escaping = false
                    for c in value {
                        if escaping || c != "\\" { unescaped.append(c); escaping = false } else { escaping = true }
                    }
                    value = Substring(unescaped)
                }
            }
            values[key] = String(value)
        }
        return values
    }

    /// machine-info's CHASSIS words, as a person says them.
    static func chassisWord(_ word: String) -> String {
        switch clean(word) {
        case "laptop", "convertible": "laptop"
        case "desktop": "desktop"
        case "tablet": "tablet"
        case "server": "server"
        case "handset": "phone"
        default: "computer"  // vm, container, embedded, watch, unknown
        }
    }

    /// SMBIOS chassis types (DMTF DSP0134 7.4.1), grouped as systemd's
    /// hostnamed groups them.
    static func chassisWord(_ type: Int) -> String {
        switch type {
        case 0x03, 0x04, 0x05, 0x06, 0x07, 0x0D, 0x0F, 0x10, 0x18, 0x23, 0x24: "desktop"
        case 0x08, 0x09, 0x0A, 0x0E, 0x1F: "laptop"
        case 0x0B: "phone"
        case 0x1E, 0x20: "tablet"
        case 0x11, 0x17, 0x1C, 0x1D: "server"
        default: "computer"
        }
    }

    /// The GECOS real name (its first field), else the login; nil if
    /// neither is known.
    static func personName() -> String? {
        if let entry = getpwuid(getuid()) {
            if let gecos = entry.pointee.pw_gecos {
                let real = clean(String(String(cString: gecos).split(separator: ",", omittingEmptySubsequences: false).first ?? ""))
                if !real.isEmpty { return real }
            }
            if let login = entry.pointee.pw_name {
                let name = clean(String(cString: login))
                if !name.isEmpty { return name }
            }
        }
        if let login = getenv("USER").map({ clean(String(cString: $0)) }), !login.isEmpty { return login }
        return nil
    }

    private static func path(_ variable: String, _ fallback: String) -> String {
        getenv(variable).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? fallback
    }

    /// The first 4 KiB of a file, nil if it cannot be read.
    private static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 4096)
        var total = 0
        while total < buffer.count {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + total, $0.count - total) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            total += n
        }
        return String(decoding: buffer.prefix(total), as: UTF8.self)
    }

    /// Without surrounding white space and control characters.
    private static func clean(_ text: String) -> String {
        let kept = String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
        var s = Substring(kept)
        while let f = s.first, f.isWhitespace { s.removeFirst() }
        while let l = s.last, l.isWhitespace { s.removeLast() }
        return String(s)
    }
}
