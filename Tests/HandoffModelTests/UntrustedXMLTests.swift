// SPDX-License-Identifier: MIT OR Apache-2.0
import Testing
@testable import HandoffModel

/// What every reader built on `UntrustedXML` gets from it, whatever its
/// grammar: no entity declared, the first failure kept, expat's errors
/// with line and column.
@Suite struct UntrustedXMLTests {
    /// Records what arrives; fails on an element named "bad".
    final class Recorder: XMLEventSink {
        let xml: UntrustedXML
        var events: [String] = []
        init(_ xml: UntrustedXML) { self.xml = xml }
        func start(_ name: String, _ attributes: XMLAttributes) {
            events.append("<\(name) \(attributes.dictionary().sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ","))>")
            if name == "bad" { xml.fail("bad element"); xml.fail("a second reason") }
        }
        func end(_ name: String) { events.append("</\(name)>") }
        func characters(_ text: UnsafeBufferPointer<UInt8>) { events.append(String(decoding: text, as: UTF8.self)) }
    }

    func parse(_ text: String, namespaces: Bool = false) -> (String?, [String]) {
        let xml = UntrustedXML(namespaces: namespaces)!
        let sink = Recorder(xml)
        let failure = xml.parse(Array(text.utf8), into: sink) { "no entity \($0) here" }
        return (failure, sink.events)
    }

    @Test func eventsArriveInOrder() {
        let (failure, events) = parse("<a x='1' y='2'>hi<b/></a>")
        #expect(failure == nil)
        #expect(events == ["<a x=1,y=2>", "hi", "<b >", "</b>", "</a>"])
    }

    @Test func namesCarryTheirNamespace() {
        let (failure, events) = parse("<a xmlns:m='urn:m'><m:b/></a>", namespaces: true)
        #expect(failure == nil)
        #expect(events == ["<a >", "<urn:m b >", "</urn:m b>", "</a>"])
    }

    /// A billion laughs never expands: the declaration itself stops the parse.
    @Test func anEntityDeclarationIsRefusedBeforeAnyElement() {
        let (failure, events) = parse("<!DOCTYPE a [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;\">]><a>&lol2;</a>")
        // Where expat stands once the first declaration is read: its end.
        #expect(failure == "line 1, column 27: no entity lol here")
        #expect(events.isEmpty)
    }

    @Test func theFirstFailureIsKeptAndStopsTheParse() {
        let (failure, events) = parse("<a>\n  <bad/><after/></a>")
        #expect(failure == "line 2, column 3: bad element")
        #expect(!events.contains("<after >"))
    }

    @Test func expatsOwnErrorsNameLineAndColumn() {
        let (failure, _) = parse("<a>\n</b>")
        #expect(failure?.hasPrefix("line 2, column ") == true)
        #expect(failure?.contains("not well-formed XML: mismatched tag") == true)
        #expect(parse("").0?.contains("not well-formed XML") == true)
    }

    @Test func attributesAreBounded() {
        let many = (0..<100).map { "a\($0)='\($0)'" }.joined(separator: " ")
        let xml = UntrustedXML()!
        final class Count: XMLEventSink {
            var counts: [Int] = []
            func start(_ name: String, _ attributes: XMLAttributes) {
                counts = [attributes.dictionary().count, attributes.dictionary(limit: 10).count, attributes.dictionary(limit: .max).count]
            }
            func end(_ name: String) {}
            func characters(_ text: UnsafeBufferPointer<UInt8>) {}
        }
        let sink = Count()
        #expect(xml.parse(Array("<e \(many)/>".utf8), into: sink) { _ in "" } == nil)
        #expect(sink.counts == [64, 10, 100])
    }
}
