// SPDX-License-Identifier: MIT OR Apache-2.0
// Fuzz target: DesktopEntry(bytes:), a desktop entry file as the agent
// finds one in an applications folder (docs/agent.md §5), then every value
// read as each type the agent reads, every value parsed as an Exec line and
// checked as a web page URL. Any input gives values or thrown errors,
// never a trap.
import HandoffAgent

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let entry = try? DesktopEntry(bytes: bytes, source: "fuzz.desktop") else { return 0 }
    precondition(entry.groupNames.first == DesktopEntry.mainGroup)
    for group in entry.groupNames {
        for key in entry.keys(in: group) {
            precondition(entry.line(of: key, in: group) != nil)
            _ = try? entry.strings(key, in: group)
            _ = try? entry.boolean(key, in: group)
            guard let value = try? entry.string(key, in: group) else { continue }
            if let exec = try? ExecCommandLine(value) {
                precondition(!exec.program.isEmpty && !exec.program.contains("="))
            }
            if (try? WebOpener.check(value)) != nil {
                precondition(!value.utf8.contains { $0 <= 0x20 || $0 >= 0x7F || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "`") })
            }
        }
    }
    _ = try? entry.localizedString("Name", locale: "sr_RS.UTF-8@latin")
    return 0
}
