// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// `handoff account create | code [--qr] | join CODE | show | rotate`: the
/// account every device of the person shares. The key never leaves the
/// account file except as the pairing code, and only `code` prints that.
enum AccountCommand: Command {
    static let name = "account"
    static let summary = "create this person's account, show its pairing code, join it on another device"
    static let synopsis = [
        "account create [--force]",
        "account code [--qr]",
        "account join CODE [--force]      (CODE \"-\": read it from standard input)",
        "account show",
        "account rotate",
    ]
    static let details = """
        The account is a secret key every device of one person holds; only devices
        with the same account see and continue each other's activities.

          create  makes a new account on this device (refuses to replace one without --force)
          code    prints the pairing code: the key, written for people. It is the secret:
                  type it only into your own devices
          join    stores the account of a pairing code from another device
          show    prints the account ID (a public fingerprint), the files, and this device;
                  never the key
          rotate  replaces the account key on this device with a new one, so a lost or sold
                  device's key opens nothing any more; then pair your other devices again
                  (`handoff pair --join --force` there, `handoff pair` here)

        code --qr shows the code as a QR code too, drawn by the qrencode tool
        (Debian/Ubuntu: apt install qrencode).

        Files: $XDG_CONFIG_HOME/handoff/account (mode 0600) and .../device.
        """
    static let options: [OptionSpec] = [
        .flag("--force", "create/join: replace an existing, different account"),
        .flag("--qr", "code: show the pairing code as a QR code too (needs qrencode)"),
    ]
    static let positionals = 1...64

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        let action = arguments.positionals[0]
        let rest = Array(arguments.positionals.dropFirst())
        let profile = try Profile.open()
        switch action {
        case "create":
            try expectNone(rest, arguments)
            return try create(profile, arguments, output)
        case "code":
            try expectNone(rest, arguments)
            let key = try profile.account()
            // Drawn before anything is printed: without qrencode, no code either.
            let qr = arguments.has("--qr") ? try QRCode.draw(key.pairingCode, forTerminal: !output.json && isatty(1) != 0) : nil
            output.note("The pairing code is the account's secret: type it only into your own devices.")
            var fields: JSONObject = ["account": .string(key.id), "pairing_code": .string(key.pairingCode)]
            if let qr { fields["qr"] = .string(qr) }
            output.emit(.object(fields), human: qr.map { $0 + key.pairingCode } ?? key.pairingCode)
            return ExitCode.ok
        case "join":
            return try join(profile, rest, arguments, output)
        case "show":
            try expectNone(rest, arguments)
            return try show(profile, output)
        case "rotate":
            try expectNone(rest, arguments)
            return try rotate(profile, output)
        default:
            throw arguments.usage("unknown account action \"\(action)\": use create, code, join, show or rotate")
        }
    }

    private static func expectNone(_ rest: [String], _ arguments: ParsedArguments) throws(UsageError) {
        if let extra = rest.first { throw arguments.usage("unexpected argument \"\(extra)\"") }
    }

    private static func create(_ profile: Profile, _ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        if let existing = try profile.existingAccount(), !arguments.has("--force") {
            throw HandoffError(.invalidState,
                "this device already has account \(existing.id): `handoff account show` shows it; "
                    + "--force replaces it (this device then leaves that account)")
        }
        let key = AccountKey.generate()
        try profile.store.saveAccount(key)
        let device = try profile.device()
        output.emit(["account": .string(key.id), "path": .string(profile.store.accountPath), "device": deviceJSON(device)],
                    human: "Created account \(key.id) in \(profile.store.accountPath).")
        output.note("Next: `handoff account code` here, then `handoff account join CODE` on your other devices.")
        return ExitCode.ok
    }

    private static func join(_ profile: Profile, _ words: [String], _ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        guard !words.isEmpty else { throw arguments.usage("join needs the pairing code: handoff account join CODE") }
        // People paste codes with spaces; "-" keeps the code out of the
        // shell history and the process list.
        let code = words == ["-"] ? readStandardInput() : words.joined(separator: " ")
        let key: AccountKey
        do {
            key = try AccountKey(pairingCode: code.trimmingWhitespace)
        } catch {
            throw arguments.usage(error.message)
        }
        if let existing = try profile.existingAccount() {
            if existing == key {
                output.emit(["account": .string(key.id), "path": .string(profile.store.accountPath), "joined": .bool(false)],
                            human: "This device is already on account \(key.id).")
                return ExitCode.ok
            }
            guard arguments.has("--force") else {
                throw HandoffError(.invalidState,
                    "this device is on another account (\(existing.id)); --force replaces it with \(key.id)")
            }
        }
        try profile.store.saveAccount(key)
        let device = try profile.device()
        output.emit(["account": .string(key.id), "path": .string(profile.store.accountPath), "joined": .bool(true),
                     "device": deviceJSON(device)],
                    human: "Joined account \(key.id) as \(device.name).")
        return ExitCode.ok
    }

    /// The ceremony for a lost or sold device (docs/cli.md): a new key here,
    /// written over the old one by the account store (same checks, atomic
    /// rename); the other devices then pair again.
    private static func rotate(_ profile: Profile, _ output: Output) throws -> Int32 {
        let old = try profile.account()
        var key = AccountKey.generate()
        while key == old { key = AccountKey.generate() }
        try profile.store.saveAccount(key)
        let device = try profile.device()
        output.emit(["account": .string(key.id), "previous": .string(old.id), "path": .string(profile.store.accountPath),
                     "device": deviceJSON(device)],
                    human: "Rotated: this device is now on account \(key.id); account \(old.id) is gone from it.")
        output.note("""
            Devices still holding the old key (the lost one too) no longer see this one, nor it them.
            Pair each of your other devices again: run `handoff pair --join --force` there and
            `handoff pair` here, and compare the codes. Restart programs that use Handoff on this
            device (and `handoff agent`), which still hold the old key.
            """)
        return ExitCode.ok
    }

    private static func show(_ profile: Profile, _ output: Output) throws -> Int32 {
        let key = try profile.account()
        let device = try profile.device()
        output.emit(["account": .string(key.id), "directory": .string(profile.directory),
                     "path": .string(profile.store.accountPath), "device": deviceJSON(device)],
                    human: """
                        account   \(key.id)
                        file      \(profile.store.accountPath)
                        device    \(device.name) (\(device.role.name), id \(device.id))
                        """)
        return ExitCode.ok
    }

    static func deviceJSON(_ device: DeviceIdentity) -> JSON {
        ["id": .string(device.id), "name": .string(device.name), "role": .string(device.role.name)]
    }

    private static func readStandardInput() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 512)
        while bytes.count < 4096 {
            let n = read(0, &buffer, buffer.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s.removeFirst() }
        while let c = s.last, c.isWhitespace { s.removeLast() }
        return String(s)
    }
}
