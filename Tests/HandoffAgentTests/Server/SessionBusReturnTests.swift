// SPDX-License-Identifier: MIT OR Apache-2.0
@testable import HandoffAgent
@testable import HandoffDBus
import Testing

/// Which session-bus addresses the agent can watch for the bus's return
/// (docs/agent.md §8 "Every state of the machine"): the socket path of the
/// first `unix:path=` entry, its escapes undone; nothing else.
@Suite struct SessionBusReturnTests {
    @Test func findsTheSocketPathOfAUnixPathAddress() {
        #expect(SessionBusReturn.socketPath(of: "unix:path=/run/user/1000/bus") == "/run/user/1000/bus")
        #expect(SessionBusReturn.socketPath(of: "unix:path=/tmp/a%20b/bus,guid=0123") == "/tmp/a b/bus")
        #expect(SessionBusReturn.socketPath(of: "unix:guid=01,path=/tmp/bus") == "/tmp/bus")
        #expect(SessionBusReturn.socketPath(of: "tcp:host=localhost,port=1;unix:path=/tmp/bus") == "/tmp/bus")
    }

    @Test func watchesNothingElse() {
        #expect(SessionBusReturn.socketPath(of: nil) == nil)
        #expect(SessionBusReturn.socketPath(of: "unix:abstract=/tmp/dbus-XYZ") == nil)
        #expect(SessionBusReturn.socketPath(of: "unix:dir=/tmp") == nil)
        #expect(SessionBusReturn.socketPath(of: "tcp:host=localhost,port=1") == nil)
        #expect(SessionBusReturn.socketPath(of: "unix:path=relative/bus") == nil)
        #expect(SessionBusReturn.socketPath(of: "unix:path=/tmp/bad%2") == nil)
        #expect(SessionBusReturn.socketPath(of: "unix:path=/tmp/bad%zz") == nil)
    }
}
