// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// `handoff pair` on a new device, on a terminal: "Name this device
/// [Ada's laptop]: " — Enter keeps the default. Asks only when both
/// standard input and standard error are terminals and the output is not
/// JSON (scripts and tests keep the default); an invalid name asks again,
/// three times at most.
enum DeviceNamePrompt {
    static func ask(default name: String, _ output: Output) -> String? {
        guard !output.json, isatty(0) == 1, isatty(2) == 1 else { return nil }
        for _ in 0..<3 {
            Output.writeError("Name this device, as your other devices will show it [\(name)]: ")
            guard let line = readLine(strippingNewline: true) else { return nil }
            let typed = line.trimmingWhitespace
            if typed.isEmpty { return nil }
            do {
                try DeviceIdentity.validateName(typed)
                return typed
            } catch {
                Output.writeError("\(error.message)\n")
            }
        }
        return nil
    }
}
