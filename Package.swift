// swift-tools-version:6.0
// SPDX-License-Identifier: MIT OR Apache-2.0
//
// libhandoff: Handoff for Linux apps. The product is libhandoff.so, a C-ABI
// shared library whose core is Swift. See README.md and docs/.
//
// Layers are separate targets so the compiler keeps them one-way
// (docs/ARCHITECTURE.md "Layers"): HandoffModel <- HandoffRuntime <- HandoffContinuity <-
// HandoffCABI. The runtime sees continuity only through its
// ContinuityService protocol. No package dependencies: TLS and crypto come from
// the system's OpenSSL 3 through the COpenSSL system-library target, XML
// Info.plists are read with the system's expat through CExpat.

import Foundation
import PackageDescription

/// Absolute path of the package root, so linker flags can name files in it
/// whatever directory SwiftPM runs the linker from.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path

/// Full RELRO: every symbol bound at load (-z now) and the GOT then made
/// read-only, as Debian builds its binaries (lintian hardening-no-bindnow).
let hardeningLinkerFlags = ["-Xlinker", "-z", "-Xlinker", "now", "-Xlinker", "-z", "-Xlinker", "relro"]
// (Top-level code: defined before the lists that use it.)

/// libhandoff.so is self-contained: the Swift runtime and standard library
/// are linked statically, only `handoff_*` symbols are exported (version
/// script), and the library carries a SONAME so hosts link against the ABI
/// major version.
let sharedLibraryLinkerFlags: [String] = [
    "-static-stdlib", "-use-ld=lld",
    "-Xlinker", "--version-script=\(root)/Sources/HandoffCABI/exports.map",
    "-Xlinker", "-soname=libhandoff.so.0",
] + hardeningLinkerFlags

/// Release builds of the library and the tool, each one link unit that
/// exports no Swift symbol (only `handoff_*`, or nothing): public Swift
/// symbols may be internalized and each function has its own section, so
/// the linker drops what nothing calls (SwiftPM links with --gc-sections).
/// Not -Osize: 150 KB smaller, and userInfo encode+decode 15% slower.
let footprintSettings: [SwiftSetting] = [
    .unsafeFlags(["-Xfrontend", "-internalize-at-link", "-Xfrontend", "-function-sections"],
                 .when(configuration: .release)),
]

/// Neither libhandoff.so nor the `handoff` tool links Foundation or the
/// regex modules (README, "Size"): no target of theirs imports a Foundation
/// module, and code that reaches for the regex module's string algorithms
/// does not compile there.
let withoutFoundation: [SwiftSetting] = footprintSettings + [
    .unsafeFlags(["-Xfrontend", "-disable-implicit-string-processing-module-import"]),
]

/// -Osize for the engine's target (HandoffContinuity): 0.16 MiB off
/// libhandoff.so (README "Size"); its time goes to sockets, TLS and
/// OpenSSL's crypto, and `make bench` shows stream throughput and the warm
/// continue unchanged. Not HandoffModel: userInfo coding is 15% slower
/// there at -Osize.
let optimizedForSize: [SwiftSetting] = [.unsafeFlags(["-Osize"], .when(configuration: .release))]

/// Identical code folding (lld), and a linker map per release link that
/// `make size` reads (scripts/size.py): into .build/, where the default
/// scratch path puts everything else.
func footprintLinkerSettings(map name: String) -> [LinkerSetting] {
    [.unsafeFlags(["-Xlinker", "--icf=all", "-Xlinker", "-Map=\(root)/.build/\(name).map"],
                  .when(configuration: .release))]
}

/// What only libhandoff.so's release link does to be small (README "Size";
/// `make size` shows each part):
/// - the standard library from `.build/footprint/Swift.o`, the toolchain's
///   Swift.o with its functions and constants collectable (the toolchain
///   marks every one retained; `make lib` makes the copy with
///   scripts/unretained_stdlib.py): given as an input, ahead of the archive;
/// - (relative relocations packed, DT_RELR, is the Makefile's choice,
///   PACK_RELATIVE_RELOCS=1: it needs glibc 2.36 where the library runs);
/// - no unwind tables (no-unwind-tables.ld; nothing in it unwinds);
/// - the runtime's Unicode character-name lookup answered by a stub
///   (CLinux/no_scalar_names.c): nothing in the library asks for a
///   character's name, and its tables are 0.55 MiB.
let libraryFootprintLinkerSettings: [LinkerSetting] = [
    .unsafeFlags(["\(root)/.build/footprint/Swift.o",
                  "-Xlinker", "-T", "-Xlinker", "\(root)/Sources/HandoffCABI/no-unwind-tables.ld",
                  "-Xlinker", "--no-eh-frame-hdr",
                  "-Xlinker", "--defsym=_swift_stdlib_getScalarName=clinux_no_scalar_name"],
                 .when(configuration: .release)),
]

let package = Package(
    name: "libhandoff",
    products: [
        .library(name: "handoff", type: .dynamic, targets: ["HandoffCABI"]),
        .library(name: "HandoffRuntime", targets: ["HandoffRuntime"]),
        // The `handoff` command (the library already owns the product name
        // "handoff"; the Makefile installs this one as `handoff`).
        .executable(name: "handoff-cli", targets: ["HandoffTool"]),
    ],
    dependencies: [],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "openssl",
            providers: [.apt(["libssl-dev"])]
        ),
        // expat reads XML Info.plists (Manifest); the system's libexpat1.
        .systemLibrary(
            name: "CExpat",
            pkgConfig: "expat",
            providers: [.apt(["libexpat1-dev"])]
        ),
        // sd-bus (libsystemd): the agent's D-Bus side only (docs/agent.md §6).
        .systemLibrary(
            name: "CSystemd",
            pkgConfig: "libsystemd",
            providers: [.apt(["libsystemd-dev"])]
        ),
        // libmosquitto: the relay's MQTT client (PROTOCOL.md §11), HandoffRelay's
        // only (the agent's and the tool's), like sd-bus: libhandoff.so never links it.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        // SQLite with FTS5: the history index (docs/history.md), the
        // agent's and the tool's only, like sd-bus.
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .target(name: "CLinux"),
        .systemLibrary(name: "CHandoffHeader"),
        // Below every layer: locks and waits (`Locked`, `Awaitable`,
        // `Deadline`), the clocks, the wake-up pipe, and the threads' event
        // loop (`Reactor`), with the system-call error they throw.
        .target(name: "HandoffBase", dependencies: ["CLinux"], swiftSettings: withoutFoundation),
        .target(name: "HandoffModel", dependencies: ["HandoffBase", "CExpat"], swiftSettings: withoutFoundation),
        .target(name: "HandoffRuntime", dependencies: ["HandoffBase", "HandoffModel", "CLinux"], swiftSettings: withoutFoundation),
        .target(name: "HandoffContinuity", dependencies: ["HandoffBase", "HandoffModel", "HandoffRuntime", "COpenSSL", "CLinux"],
                swiftSettings: withoutFoundation + optimizedForSize),
        .target(
            name: "HandoffCABI",
            dependencies: ["CHandoffHeader", "HandoffBase", "HandoffModel", "HandoffRuntime", "HandoffContinuity"],
            exclude: ["exports.map", "no-unwind-tables.ld"],
            swiftSettings: [
                // `@c @implementation`: each thunk is checked against handoff.h.
                .enableExperimentalFeature("CImplementation"),
                .unsafeFlags(["-static-stdlib"]),
            ] + withoutFoundation,
            linkerSettings: [.unsafeFlags(sharedLibraryLinkerFlags)] + footprintLinkerSettings(map: "libhandoff.so")
                + libraryFootprintLinkerSettings
        ),
        // JSON values and their writer, for the command's --json
        // output and the browser bridge's messages.
        .target(name: "HandoffJSON", swiftSettings: withoutFoundation),
        // The bridges' parts that need no command or agent, tested on their own: the browser
        // bridge's wire (native-messaging frames and messages, fuzzed) and
        // host manifests (docs/browser.md); the MPRIS bridge's players, URL
        // rules and userInfo (docs/mpris.md); the documents bridge's readers
        // (recently-used.xbel with expat, KDE's RecentDocuments), app match
        // and rules (docs/documents.md §7).
        .target(name: "HandoffBridges", dependencies: ["HandoffJSON", "HandoffModel", "HandoffDBus"],
                swiftSettings: withoutFoundation),
        // A session-bus client on sd-bus (connection, messages, values,
        // served objects), driven by its owner's loop; no feature in it.
        .target(name: "HandoffDBus", dependencies: ["CSystemd"], swiftSettings: withoutFoundation),
        // The relay through an MQTT broker (PROTOCOL.md §11, docs/agent.md
        // §12): a `PeerPath` the agent gives its engine, libmosquitto behind
        // its broker seam (`RelayBroker`, MQTT/). The agent's and the tool's
        // only: libhandoff.so never links it.
        .target(name: "HandoffRelay", dependencies: ["HandoffBase", "HandoffModel", "HandoffContinuity", "COpenSSL", "CMosquitto"],
                swiftSettings: withoutFoundation),
        // The per-user agent (docs/agent.md); linked into the `handoff` command only.
        .target(
            name: "HandoffAgent",
            dependencies: ["HandoffBase", "HandoffModel", "HandoffRuntime", "HandoffContinuity", "HandoffRelay", "HandoffDBus", "CLinux", "CSQLite"],
            swiftSettings: withoutFoundation
        ),
        .executableTarget(
            name: "HandoffTool",
            dependencies: ["HandoffBase", "HandoffModel", "HandoffRuntime", "HandoffContinuity", "CLinux", "HandoffAgent", "HandoffJSON",
                           "HandoffBridges", "HandoffDBus", "HandoffRelay"],
            // Self-contained like the library: runs where no Swift toolchain is.
            swiftSettings: [.unsafeFlags(["-static-stdlib"])] + withoutFoundation,
            linkerSettings: [.unsafeFlags(["-static-stdlib", "-use-ld=lld"] + hardeningLinkerFlags)] + footprintLinkerSettings(map: "handoff-cli")
        ),
        // What several test targets read from the repository (fuzz corpora,
        // PROTOCOL.md's vectors) and the fixtures they share (accounts, engines
        // on loopback, child processes); built only for the tests.
        .target(name: "HandoffTestSupport", dependencies: ["HandoffBase", "HandoffModel", "HandoffRuntime", "HandoffContinuity", "CLinux"],
                path: "Tests/HandoffTestSupport",
                swiftSettings: withoutFoundation),
        .testTarget(name: "HandoffBaseTests", dependencies: ["HandoffBase", "CLinux"]),
        .testTarget(name: "HandoffModelTests", dependencies: ["HandoffModel", "HandoffTestSupport"]),
        .testTarget(name: "HandoffRuntimeTests", dependencies: ["HandoffBase", "HandoffRuntime"]),
        // HandoffRelay only for PROTOCOL.md's vectors, one registry for the document.
        .testTarget(name: "HandoffContinuityTests", dependencies: ["HandoffBase", "HandoffContinuity", "HandoffRelay", "HandoffTestSupport"]),
        .testTarget(name: "HandoffRelayTests", dependencies: ["HandoffBase", "HandoffRelay", "HandoffContinuity", "HandoffRuntime", "HandoffModel",
                                                             "HandoffTestSupport"]),
        .testTarget(name: "HandoffBridgeTests", dependencies: ["HandoffJSON", "HandoffBridges", "HandoffDBus", "HandoffModel",
                                                               "HandoffTestSupport"]),
        .testTarget(name: "HandoffAgentTests", dependencies: ["HandoffBase", "HandoffAgent", "HandoffDBus", "HandoffModel", "HandoffTestSupport"]),
    ]
)
