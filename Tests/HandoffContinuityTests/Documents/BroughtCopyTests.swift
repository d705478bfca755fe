// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel
@testable import HandoffContinuity
import HandoffTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Brought copies (docs/documents.md §4 step 4): never over anything,
/// nothing left when abandoned, never outside the slot's root; with an
/// unnamed file (O_TMPFILE) and with the `.part` fallback.
@Suite struct BroughtCopyTests {
    static func copy(in directory: String, name: String, device: String, unnamed: Bool) throws -> BroughtCopy {
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(fd >= 0)
        return try BroughtCopy(directoryFD: fd, directory: directory, name: name, device: device, unnamed: unnamed)
    }

    static func write(_ copy: BroughtCopy, _ text: String) throws {
        // Copied out rather than through withUnsafeBytes: a typed-throws
        // closure there crashes Swift 6.3.1's IR generation.
        let bytes = Array(text.utf8)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, bytes.count), alignment: 1)
        defer { buffer.deallocate() }
        buffer.copyBytes(from: bytes)
        try copy.write(UnsafeRawBufferPointer(rebasing: buffer[0..<bytes.count]))
    }

    @Test(arguments: [true, false])
    func neverOverAnything(unnamed: Bool) throws {
        try DocumentTestFolders.with { base in
            try DocumentTestFolders.write(base + "/plan.odt", "mine")
            try DocumentTestFolders.write(base + "/plan (from Desktop).odt", "an earlier copy")
            let copy = try Self.copy(in: base, name: "plan.odt", device: "Desktop", unnamed: unnamed)
            try Self.write(copy, "theirs")
            #expect(try copy.commit() == base + "/plan (from Desktop) 2.odt")
            #expect(DocumentTestFolders.read(base + "/plan.odt") == "mine")
            #expect(DocumentTestFolders.read(base + "/plan (from Desktop).odt") == "an earlier copy")
            #expect(DocumentTestFolders.read(base + "/plan (from Desktop) 2.odt") == "theirs")
            // Nothing else: no temporary file left.
            #expect(DocumentTestFolders.names(base) == ["plan (from Desktop) 2.odt", "plan (from Desktop).odt", "plan.odt"])
            // The next one takes the next free name.
            let again = try Self.copy(in: base, name: "plan.odt", device: "Desktop", unnamed: unnamed)
            #expect(try again.commit() == base + "/plan (from Desktop) 3.odt")
        }
    }

    @Test(arguments: [true, false])
    func abandonedLeavesNothing(unnamed: Bool) throws {
        try DocumentTestFolders.with { base in
            let copy = try Self.copy(in: base, name: "plan.odt", device: "Desktop", unnamed: unnamed)
            try Self.write(copy, "half of it")
            // The .part file exists while writing (the unnamed one never shows).
            #expect(DocumentTestFolders.names(base).count == (unnamed ? 0 : 1))
            copy.abandon()
            #expect(DocumentTestFolders.names(base).isEmpty)
            #expect(throws: HandoffError.self) { _ = try copy.commit() }
            // Dropped without commit or abandon: the same.
            do {
                let dropped = try Self.copy(in: base, name: "plan.odt", device: "Desktop", unnamed: unnamed)
                try Self.write(dropped, "bytes")
            }
            #expect(DocumentTestFolders.names(base).isEmpty)
        }
    }

    @Test func namesAreSafe() {
        #expect(BroughtCopy.copyName("plan.odt", device: "Desktop", number: 1) == "plan (from Desktop).odt")
        #expect(BroughtCopy.copyName("plan.odt", device: "Desktop", number: 2) == "plan (from Desktop) 2.odt")
        #expect(BroughtCopy.copyName(".bashrc", device: "D", number: 1) == ".bashrc (from D)")
        #expect(BroughtCopy.copyName("README", device: "D", number: 3) == "README (from D) 3")
        #expect(BroughtCopy.safeDevice("Alice/../Laptop\n") == "Alice_.._Laptop_")
        #expect(BroughtCopy.safeDevice(" ") == "another device")
        #expect(BroughtCopy.safeName("..") == "document")
        #expect(BroughtCopy.safeName("a\u{7}b") == "a_b")
        let long = String(repeating: "é", count: 127) + ".txt"
        let name = BroughtCopy.copyName(long, device: String(repeating: "d", count: 64), number: 999)
        #expect(name.utf8.count <= 255 && name.hasSuffix(" (from \(String(repeating: "d", count: 64))) 999.txt"))
    }

    @Test func aHostileDeviceNameStaysInTheFolder() throws {
        try DocumentTestFolders.with { base in
            DocumentTestFolders.makeFolders(base + "/in")
            let copy = try BroughtCopy(in: base + "/in", name: "plan.odt", device: "../../x/Laptop")
            try Self.write(copy, "theirs")
            #expect(try copy.commit() == base + "/in/plan (from .._.._x_Laptop).odt")
            #expect(DocumentTestFolders.names(base) == ["in"])
        }
    }

    /// Beside the slot's file when its folder exists beneath the root;
    /// otherwise (missing, reached through a link out of the root, hidden,
    /// excluded) in the downloads folder, created.
    @Test func whereACopyGoes() throws {
        try DocumentTestFolders.with { base in
            let home = base + "/home", outside = base + "/outside"
            var places = DocumentPlaces.load(environment: ["HOME": home])
            places.settings.exclude = [home + "/Private"]
            DocumentTestFolders.makeFolders(home + "/notes")
            DocumentTestFolders.makeFolders(home + "/.config/autostart")
            DocumentTestFolders.makeFolders(home + "/Private")
            DocumentTestFolders.makeFolders(outside)
            #expect(symlink(outside, home + "/linked") == 0)
            let cases: [(String, String)] = [
                ("notes/plan.odt", home + "/notes"),
                ("missing/plan.odt", home + "/Downloads/Handoff"),
                ("linked/plan.odt", home + "/Downloads/Handoff"),
                (".config/autostart/evil.desktop", home + "/Downloads/Handoff"),
                ("Private/plan.odt", home + "/Downloads/Handoff"),
            ]
            for (relative, folder) in cases {
                let slot = DocumentSlot(root: home, relative: relative)
                let copy = try BroughtCopy.start(for: slot, name: slot.name, device: "Desktop", places: places)
                #expect(copy.directory == folder, "\(relative)")
                let path = try copy.commit()
                #expect(path.hasPrefix(folder + "/"), "\(relative)")
            }
            #expect(DocumentTestFolders.names(outside).isEmpty)
            #expect(DocumentTestFolders.names(home + "/.config/autostart").isEmpty)
            let elsewhere = try BroughtCopy.start(for: nil, name: "report.pdf", device: "Desktop", places: places)
            #expect(try elsewhere.commit() == home + "/Downloads/Handoff/report (from Desktop).pdf")
        }
    }
}
