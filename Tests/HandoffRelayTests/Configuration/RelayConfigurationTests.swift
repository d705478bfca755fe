// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
import Testing
@testable import HandoffContinuity
@testable import HandoffRelay
import HandoffTestSupport

/// `RelayConfiguration`'s URL rules and `RelayConfigurationStore`'s files.
@Suite struct RelayConfigurationTests {
    typealias F = AccountFixtures

    func parse(_ url: String, password: String? = nil, caFile: String? = nil, allowPlain: Bool = false) throws(HandoffError) -> RelayConfiguration {
        try RelayConfiguration(url: url, password: password, caFile: caFile, allowPlain: allowPlain)
    }

    func refusal(_ url: String, password: String? = nil, caFile: String? = nil, allowPlain: Bool = false) -> HandoffError? {
        do throws(HandoffError) {
            _ = try parse(url, password: password, caFile: caFile, allowPlain: allowPlain)
            return nil
        } catch {
            return error
        }
    }

    @Test func fullURL() throws {
        let c = try parse("mqtts://alice@broker.example:8884", password: "pw")
        #expect(c.scheme == .mqtts && c.host == "broker.example" && c.port == 8884)
        #expect(c.username == "alice" && c.password == "pw" && c.caFile == nil && !c.allowPlain)
        #expect(c.url == "mqtts://alice@broker.example:8884")
    }

    @Test func defaultPortsAndCanonicalForm() throws {
        #expect(try parse("mqtts://Broker.Example.").url == "mqtts://broker.example:8883")
        #expect(try parse("MQTT://localhost").url == "mqtt://localhost:1883")
        #expect(try parse("mqtts://broker.example/").url == "mqtts://broker.example:8883")
        #expect(try parse("mqtts://203.0.113.7:9000").host == "203.0.113.7")
    }

    @Test func ipv6InBrackets() throws {
        let c = try parse("mqtt://[0:0:0:0:0:0:0:1]:1884")
        #expect(c.host == "::1" && c.port == 1884)
        #expect(c.url == "mqtt://[::1]:1884")
        #expect(try parse("mqtts://u@[2001:DB8::7]").url == "mqtts://u@[2001:db8::7]:8883")
        #expect(refusal("mqtts://2001:db8::7") != nil, "IPv6 without brackets")
        #expect(refusal("mqtts://[2001:db8::7") != nil)
        #expect(refusal("mqtts://[not-v6]:1") != nil)
        #expect(refusal("mqtts://[fe80::1%eth0]") != nil)
    }

    @Test func usernameIsPercentDecodedAndEncodedBack() throws {
        let c = try parse("mqtts://ada%40example.org@broker.example")
        #expect(c.username == "ada@example.org")
        #expect(c.url == "mqtts://ada%40example.org@broker.example:8883")
        #expect(try parse(c.url).username == "ada@example.org", "the canonical URL parses to the same")
        #expect(refusal("mqtts://%zz@h") != nil)
        #expect(refusal("mqtts://@h") != nil)
    }

    @Test func passwordInTheURLIsRefusedWithTheWayOut() {
        let error = refusal("mqtts://alice:secret@broker.example")
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("--password-file") == true)
        #expect(error?.message.contains("secret") == false, "the message never repeats the password")
    }

    @Test func plainOnlyToLoopbackUnlessAllowed() throws {
        for host in ["127.0.0.1", "127.3.4.5", "[::1]", "localhost", "[::ffff:127.0.0.1]"] {
            #expect(try parse("mqtt://\(host)").scheme == .mqtt, "\(host)")
        }
        for host in ["broker.example", "192.0.2.1", "[2001:db8::1]", "128.0.0.1", "localhost.example"] {
            let error = refusal("mqtt://u@\(host)", password: "pw")
            #expect(error?.code == .invalidArgument, "\(host)")
            #expect(error?.message.contains("--allow-plain") == true)
            #expect(error?.message.contains("clear") == true)
            #expect(try parse("mqtt://u@\(host)", password: "pw", allowPlain: true).allowPlain)
        }
    }

    @Test func malformedURLsAreRefused() {
        let bad = [
            "", "broker.example", "mqtts:/broker.example", "http://broker.example", "ws://h", "mqtts://",
            "mqtts://h:0", "mqtts://h:65536", "mqtts://h:", "mqtts://h:-1", "mqtts://h:+80", "mqtts://h:0x50",
            "mqtts://h/path", "mqtts://h?x=1", "mqtts://h#frag", "mqtts://h:8883/x", "mqtts://bad host",
            "mqtts://-h", "mqtts://h..example", "mqtts://h\n", "mqtts://" + String(repeating: "a", count: 64),
            "mqtts://" + String(repeating: "a.", count: 600),
        ]
        for url in bad {
            #expect(refusal(url)?.code == .invalidArgument, "\(url)")
        }
    }

    @Test func passwordAndCAFileRules() {
        #expect(refusal("mqtts://h", password: "pw") != nil, "a password needs a user name")
        #expect(refusal("mqtts://u@h", password: "a\nb") != nil)
        #expect(refusal("mqtts://u@h", password: "") != nil)
        #expect(refusal("mqtts://u@h", password: String(repeating: "x", count: 1025)) != nil)
        #expect(refusal("mqtts://u@h", password: String(repeating: "x", count: 1024)) == nil)
        #expect(refusal("mqtts://h", caFile: "relative.pem") != nil)
        #expect(refusal("mqtt://localhost", caFile: "/etc/ca.pem") != nil, "a CA file is for TLS")
        #expect(refusal("mqtts://h", caFile: "/etc/ca.pem") == nil)
    }

    // MARK: Store

    func loadFailure(_ store: RelayConfigurationStore) -> HandoffError? {
        do throws(HandoffError) {
            _ = try store.load()
            return nil
        } catch {
            return error
        }
    }

    func withStore<R>(_ body: (RelayConfigurationStore) throws -> R) throws -> R {
        try F.withTemporaryDirectory { root in try body(RelayConfigurationStore(directory: root + "/config/handoff")) }
    }

    @Test func storeRoundTripAndClear() throws {
        try withStore { store in
            #expect(try store.load() == nil)
            let c = try parse("mqtts://alice@broker.example", password: "s3cret pass", caFile: "/etc/ssl/ca.pem")
            try store.save(c)
            #expect(try store.load() == c)
            #expect(F.read(store.path) == "url=mqtts://alice@broker.example:8883\nca=/etc/ssl/ca.pem\n")
            #expect(F.read(store.passwordPath) == "s3cret pass\n")
            #expect(F.mode(store.path) == 0o600 && F.mode(store.passwordPath) == 0o600)
            #expect(F.mode(store.directory) == 0o700)
            // Without a password, the old one goes.
            let plain = try parse("mqtt://bob@192.0.2.9:1884", allowPlain: true)
            try store.save(plain)
            #expect(try store.load() == plain)
            #expect(F.read(store.passwordPath) == nil)
            #expect(F.read(store.path) == "url=mqtt://bob@192.0.2.9:1884\nallow-plain=yes\n")
            try store.clear()
            #expect(try store.load() == nil)
            #expect(F.entries(store.directory) == [])
            try store.clear()  // absent: no error
        }
    }

    @Test func damagedFilesSayHowToFixThem() throws {
        try withStore { store in
            try store.save(try parse("mqtts://alice@broker.example", password: "pw"))
            let damaged = [
                "", "url=ftp://h\n", "url=mqtt://broker.example\n", "url=mqtts://h\nurl=mqtts://h\n",
                "no equals\n", "url=mqtts://h\nallow-plain=maybe\n", "url=mqtts://h\nca=relative\n",
            ]
            for text in damaged {
                F.write(store.path, text)
                let failure = loadFailure(store)
                #expect(failure?.code == .malformedData, "\(text)")
                #expect(failure?.message.contains(store.path) == true)
                #expect(failure?.message.contains("handoff relay clear") == true)
            }
            F.write(store.path, "url=mqtts://alice@h\nfuture-key=1\n")
            #expect(try store.load()?.password == "pw", "unknown keys are ignored")
            F.write(store.passwordPath, "\n")
            var failure = loadFailure(store)
            #expect(failure?.code == .malformedData && failure?.message.contains(store.passwordPath) == true)
            F.write(store.passwordPath, String(repeating: "x", count: 2000))
            failure = loadFailure(store)
            #expect(failure?.code == .malformedData && failure?.message.contains("handoff relay set") == true)
        }
    }

    @Test func unsafeFilesAreRefused() throws {
        try withStore { store in
            try store.save(try parse("mqtts://alice@broker.example", password: "pw"))
            F.write(store.passwordPath, "pw\n", mode: 0o644)
            let failure = loadFailure(store)
            #expect(failure?.code == .permission)
        }
    }
}
