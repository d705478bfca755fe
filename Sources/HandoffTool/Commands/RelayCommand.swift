// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffJSON
import HandoffAgent
import HandoffContinuity
import HandoffRelay
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// `handoff relay [show | set URL | clear]`: the MQTT broker that carries
/// handoffs between devices with no path to each other (docs/cli.md
/// "handoff relay", PROTOCOL.md §11), kept beside the account by
/// `RelayConfigurationStore`. The password never goes on the command line.
enum RelayCommand: Command {
    static let name = "relay"
    static let summary = "show, set or clear the MQTT broker that relays handoffs between networks"
    static let synopsis = [
        "relay [show]",
        "relay set URL [--password-file FILE] [--ca-file FILE] [--allow-plain]",
        "relay clear",
    ]
    static let details = """
        The relay carries handoffs, sealed end to end, through an MQTT broker you run,
        between your devices that have no network path to each other. Actions:

          show     (the default) the broker's URL, the user, whether a password is
                   stored (never the password), the CA file and the files
          set URL  use the broker at URL: mqtts://[USER@]HOST[:PORT] (port 8883 by
                   default; IPv6 as [2001:db8::1]). With a USER, the password is asked
                   for on the terminal (not shown as typed), or read from
                   --password-file FILE (- for standard input); never put it in the URL.
                   mqtt:// (no TLS, port 1883) is for a broker on this machine only,
                   unless --allow-plain says the network to it is yours.
          clear    forget the relay (and its password)

        Before saving, set connects to the broker (5 s at most) and, for mqtts://,
        checks its certificate chain and name in a TLS handshake as the agent will:
        a certificate that fails verification is refused, named with OpenSSL's
        reason; a broker not reachable from here is only a warning.

        A running agent uses a change from its next start: systemctl --user restart
        handoff-agent, or start handoff agent again.

        The broker sees when your devices are online and how much they send, never
        what: see PROTOCOL.md §11 "What the broker observes".

        On a broker other people use too, give this user only the account's topics
        (show prints them; Mosquitto: an acl_file line "topic readwrite hoff/TAG/#").

        With --json: {"configured", "url", "username", "password_stored", "ca_file",
        "allow_plain", "account_tag", "path", "password_path"}.

        Files: $XDG_CONFIG_HOME/handoff/relay and relay-password (mode 0600).
        """
    static let options: [OptionSpec] = [
        .value("--password-file", "FILE", "set: read the password from FILE (- for standard input), not the terminal"),
        .value("--ca-file", "FILE", "set: check the broker's certificate against the CA certificates in FILE (PEM, at least one), not the system's"),
        .flag("--allow-plain", "set: allow mqtt:// (no TLS) to a broker not on this machine"),
    ]
    static let positionals = 0...2

    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 {
        let words = arguments.positionals
        let store = RelayConfigurationStore(directory: try Profile.open().directory)
        let action = words.first ?? "show"
        if action != "set" {
            for option in ["--password-file", "--ca-file"] where arguments.value(option) != nil {
                throw arguments.usage("\(option) is for relay set")
            }
            if arguments.has("--allow-plain") { throw arguments.usage("--allow-plain is for relay set") }
        }
        switch action {
        case "show":
            try expectCount(words, 1, arguments)
            show(try store.load(), store, output)
        case "set":
            guard words.count == 2 else {
                throw arguments.usage("set needs the broker's URL: handoff relay set mqtts://USER@HOST:8883")
            }
            let configuration = try configuration(url: words[1], arguments)
            try checkBroker(configuration, output)
            try store.save(configuration)
            show(configuration, store, output)
            output.note(tr("A running agent uses the relay from its next start: systemctl --user restart handoff-agent (or start handoff agent again)."))
        case "clear":
            try expectCount(words, 1, arguments)
            try store.clear()
            show(nil, store, output)
            output.note(tr("A running agent stops using the relay at its next start: systemctl --user restart handoff-agent (or start handoff agent again)."))
        default:
            throw arguments.usage("unknown relay action \"\(action)\": use show, set or clear")
        }
        return ExitCode.ok
    }

    /// The configuration `set` asks for. A wrong URL or option is a usage
    /// error (exit 2, nothing written); the password comes last, so no one
    /// types it for a command that fails anyway.
    private static func configuration(url: String, _ arguments: ParsedArguments) throws -> RelayConfiguration {
        let caFile = try arguments.value("--ca-file").map { (path: String) throws(HandoffError) -> String in
            try checkedCAFile(path)
        }
        let allowPlain = arguments.has("--allow-plain")
        var configuration: RelayConfiguration
        do throws(HandoffError) {
            configuration = try RelayConfiguration(url: url, password: nil, caFile: caFile, allowPlain: allowPlain)
        } catch {
            throw arguments.usage(error.message)
        }
        let passwordFile = arguments.value("--password-file")
        guard let username = configuration.username else {
            if passwordFile != nil {
                throw arguments.usage("a password needs a user name: give the URL as mqtts://USER@\(hostPort(configuration))")
            }
            return configuration
        }
        var password: String
        if let passwordFile {
            password = try PasswordInput.read(file: passwordFile, maxLength: RelayConfiguration.maxPasswordLength)
        } else {
            let question = tr("Password for {user} at {broker} (Enter for none): ",
                              ["user": username, "broker": hostPort(configuration)])
            guard let typed = try PasswordInput.prompt(question, maxLength: RelayConfiguration.maxPasswordLength) else {
                throw arguments.usage("there is no terminal to ask for the password on: give it with --password-file FILE (- reads standard input)")
            }
            password = typed
        }
        if !password.isEmpty { configuration.password = password }
        do throws(HandoffError) {
            // The same rules again, now with the password (length, line breaks).
            return try RelayConfiguration(
                scheme: configuration.scheme, host: configuration.host, port: configuration.port,
                username: configuration.username, password: configuration.password,
                caFile: configuration.caFile, allowPlain: configuration.allowPlain)
        } catch {
            throw HandoffError(.invalidArgument, error.message)
        }
    }

    /// Seconds `set` tries to reach the broker.
    static let checkTimeout = 5.0

    /// Before saving: the broker reached and, for mqtts://, its whole chain
    /// verified in a real TLS handshake, as the agent will. A certificate
    /// that fails verification refuses the change (its words name it); a
    /// broker not reachable from here is only a warning (it may be
    /// reachable from where the agent runs, or later).
    private static func checkBroker(_ c: RelayConfiguration, _ output: Output) throws(HandoffError) {
        let broker = AgentRelay.Broker(host: c.host, port: c.port, username: c.username, password: nil,
                                       tls: c.scheme == .mqtts, caFile: c.caFile)
        do throws(HandoffError) {
            let seen = try AgentRelay.check(broker, timeout: checkTimeout)
            if c.scheme == .mqtts {
                output.note(tr("The broker {broker} answered; its certificate {subject} (issued by {issuer}) is valid for {host}.",
                               ["broker": broker.name, "subject": seen.subject ?? "?", "issuer": seen.issuer ?? "?", "host": c.host]))
            }
        } catch where error.code == .permission {
            throw error
        } catch {
            output.warning(tr("could not check the relay broker now: {why}; saved anyway (the agent tries it when it starts)",
                           ["why": error.message]))
        }
    }

    /// An absolute path to a readable regular file holding at least one
    /// PEM certificate; a relative one is taken from the current directory
    /// (the agent runs elsewhere).
    private static func checkedCAFile(_ path: String) throws(HandoffError) -> String {
        var absolute = path
        if !path.hasPrefix("/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            guard getcwd(&buffer, buffer.count) != nil else {
                throw HandoffError(.io, "cannot find the current directory for the CA file \(path): give an absolute path")
            }
            absolute = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) + "/" + path
        }
        var info = stat()
        guard stat(absolute, &info) == 0 else {
            let error = errno
            throw HandoffError(error == ENOENT ? .notFound : .io,
                               "cannot use the CA file \(absolute): \(String(cString: strerror(error)))")
        }
        guard info.st_mode & S_IFMT == S_IFREG, access(absolute, R_OK) == 0 else {
            throw HandoffError(.io, "the CA file \(absolute) is not a readable file")
        }
        guard AgentRelay.certificateCount(absolute) > 0 else {
            throw HandoffError(.malformedData, "the CA file \(absolute) holds no PEM certificate (-----BEGIN CERTIFICATE-----): give the CA certificate that signed the broker's")
        }
        return absolute
    }

    private static func hostPort(_ c: RelayConfiguration) -> String {
        c.host.contains(":") ? "[\(c.host)]:\(c.port)" : "\(c.host):\(c.port)"
    }

    private static func expectCount(_ words: [String], _ count: Int, _ arguments: ParsedArguments) throws(UsageError) {
        if words.count > count { throw arguments.usage("unexpected argument \"\(words[count])\"") }
    }

    private static func show(_ c: RelayConfiguration?, _ store: RelayConfigurationStore, _ output: Output) {
        // The account's topics, for a shared broker's ACL (PROTOCOL.md §11).
        let tag = (try? AccountStore(directory: store.directory).loadAccount()).map { RelayTopics(accountKey: $0).accountTag }
        let json: JSONObject = [
            "account_tag": tag.map(JSON.string) ?? .null,
            "configured": .bool(c != nil),
            "url": c.map { .string($0.url) } ?? .null,
            "username": c?.username.map(JSON.string) ?? .null,
            "password_stored": .bool(c?.password != nil),
            "ca_file": c?.caFile.map(JSON.string) ?? .null,
            "allow_plain": .bool(c?.allowPlain ?? false),
            "path": .string(store.path),
            "password_path": .string(store.passwordPath),
        ]
        var lines: [String]
        if let c {
            lines = [tr("Relay: {url}", ["url": c.url])]
            if let user = c.username {
                lines.append(tr("User: {user}", ["user": user]))
                lines.append(c.password != nil ? tr("Password: stored in {path}", ["path": store.passwordPath])
                             : tr("Password: none"))
            }
            switch (c.scheme, c.caFile) {
            case (.mqtt, _):
                lines.append(tr("TLS: none (mqtt://): the password and the traffic cross the network in clear"))
            case (.mqtts, let ca?):
                lines.append(tr("TLS: the broker's certificate is checked against {file}", ["file": ca]))
            case (.mqtts, nil):
                lines.append(tr("TLS: the broker's certificate is checked against the system's certificates"))
            }
            if let tag {
                lines.append(tr("Topics: hoff/{tag}/# (on a broker others use too, allow this user only these: topic readwrite hoff/{tag}/#)",
                                ["tag": tag]))
            }
        } else {
            lines = [tr("Relay: none (handoff relay set mqtts://USER@HOST:8883 sets one)")]
        }
        lines.append(tr("File: {path}", ["path": store.path]))
        output.emit(.object(json), human: lines.joined(separator: "\n"))
    }
}
