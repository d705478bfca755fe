// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffContinuity
import HandoffModel

/// `handoff device [--name NAME] [--role full|send-only]`: this device as
/// the account's other devices see it.
enum DeviceCommand: Command {
    static let name = "device"
    static let summary = "show or change this device's name and role"
    static let synopsis = ["device [--name NAME] [--role full|send-only]"]
    static let details = """
        Shows this device's identity, after changing what the options say. The id is
        random and stays; the name is what other devices show (default: the host
        name). A full device sends and receives; a send-only one (Apple: the watch)
        offers its activities but is never offered any.
        """
    static let options: [OptionSpec] = [
        .value("--name", "NAME", "the name other devices show (1-64 bytes, no control characters)"),
        .value("--role", "ROLE", "full (send and receive) or send-only"),
    ]

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        // Options first: a wrong command line changes nothing on disk.
        let name = arguments.value("--name")
        if let name {
            do {
                try DeviceIdentity.validateName(name)
            } catch {
                throw arguments.usage(error.message)
            }
        }
        var role: DeviceRole?
        if let roleName = arguments.value("--role") {
            guard let parsed = DeviceRole(name: roleName) else {
                throw arguments.usage("--role \"\(roleName)\" is not a role: use full or send-only")
            }
            role = parsed
        }
        let profile = try Profile.open()
        var device = try profile.device()
        var changed = false
        if let name, name != device.name {
            device.name = name
            changed = true
        }
        if let role, role != device.role {
            device.role = role
            changed = true
        }
        if changed { try profile.store.saveDevice(device) }
        output.emit(["device": AccountCommand.deviceJSON(device), "path": .string(profile.store.devicePath),
                     "changed": .bool(changed)],
                    human: "\(device.name) (\(device.role.name), id \(device.id))")
        return ExitCode.ok
    }
}
