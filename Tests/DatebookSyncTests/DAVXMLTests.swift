import DatebookSync
import Foundation
import Testing

struct DAVXMLTests {
    @Test func namespacesResolveThroughPrefixesAndDefaults() throws {
        let root = try DAVXML.parse(Data("""
            <?xml version="1.0" encoding="utf-8"?>
            <!-- a comment -->
            <multistatus xmlns="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav"><response><href>/ann/cal/</href>
            <propstat><prop><C:calendar-data><![CDATA[BEGIN:VCALENDAR
            ]]>&lt;x&gt; &amp; &#233;&#x1F600;</C:calendar-data><C:comp name="VTODO"/></prop></propstat></response></multistatus>
            """.utf8))
        #expect(root.namespace == "DAV:" && root.name == "multistatus")
        let prop = try #require(root.at(("DAV:", "response"), ("DAV:", "propstat"), ("DAV:", "prop")))
        #expect(prop.first(DAVNamespace.caldav, "calendar-data")?.text == "BEGIN:VCALENDAR\n<x> & é😀")
        #expect(prop.first(DAVNamespace.caldav, "comp")?.attributes["name"] == "VTODO")
        #expect(root.at(("DAV:", "response"), ("DAV:", "href"))?.text == "/ann/cal/")
    }

    @Test(arguments: [
        ("<a xmlns=\"DAV:\"><b></a>", "line 1: </a> closes <b>"),
        ("<a xmlns=\"DAV:\">\n<b>", "line 2: <b> is not closed"),
        ("<x:a/>", "line 1: undeclared namespace prefix 'x' in <x:a>"),
        ("<!DOCTYPE a [<!ENTITY e \"boom\">]><a>&e;</a>", "line 1: DOCTYPE and other declarations are not accepted"),
        ("<a/><b/>", "line 1: content after the root element"),
        ("<a>&nope;</a>", "line 1: unknown entity '&nope;'"),
        ("", "line 1: empty document"),
        ("<html><body>Sign in", "line 1: <body> is not closed"),
        ("<a b=c/>", "line 1: attribute 'b' value not quoted"),
    ])
    func malformedXMLSaysWhatAndWhere(input: String, message: String) {
        #expect(throws: (any Error).self) { try DAVXML.parse(Data(input.utf8)) }
        do {
            _ = try DAVXML.parse(Data(input.utf8))
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func deepNestingIsRefusedNotACrash() {
        let deep = String(repeating: "<a>", count: 10_000)
        #expect(throws: DAVXMLError.self) { try DAVXML.parse(Data(deep.utf8)) }
    }

    @Test func multistatusEntriesResolveHrefsAndKeepOnlyFoundProperties() throws {
        let root = try DAVXML.parse(Data("""
            <d:multistatus xmlns:d="DAV:"><d:response><d:href>/ann/cal/a.ics</d:href>
            <d:propstat><d:prop><d:getetag>"1"</d:getetag></d:prop><d:status>HTTP/1.1 200 OK</d:status></d:propstat>
            <d:propstat><d:prop><d:displayname/></d:prop><d:status>HTTP/1.1 404 Not Found</d:status></d:propstat></d:response>
            <d:response><d:href>/ann/cal/gone.ics</d:href><d:status>HTTP/1.1 404 Not Found</d:status></d:response>
            <d:sync-token>http://radicale.org/ns/sync/7</d:sync-token></d:multistatus>
            """.utf8))
        let status = try DAVMultistatus(root, base: "http://127.0.0.1:1/ann/cal/")
        #expect(status.responses.map(\.url) == ["http://127.0.0.1:1/ann/cal/a.ics", "http://127.0.0.1:1/ann/cal/gone.ics"])
        #expect(status.responses[0].prop(DAVNamespace.dav, "getetag")?.text == "\"1\"")
        #expect(status.responses[0].prop(DAVNamespace.dav, "displayname") == nil)
        #expect(status.responses[1].status == 404)
        #expect(status.syncToken == "http://radicale.org/ns/sync/7")
    }
}
