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

    /// libxml2's words for what is wrong, with the line; a DOCTYPE refused in datebook's.
    @Test(arguments: [
        ("<a xmlns=\"DAV:\"><b></a>", "line 1: Opening and ending tag mismatch: b line 1 and a"),
        ("<a xmlns=\"DAV:\">\n<b>", "line 2: <b> is not closed"),
        ("<x:a/>", "line 1: Namespace prefix x on a is not defined"),
        ("<!DOCTYPE a [<!ENTITY e \"boom\">]><a>&e;</a>", "line 1: DOCTYPE and other declarations are not accepted"),
        ("<a/><b/>", "line 1: Extra content at the end of the document"),
        ("<a>&nope;</a>", "line 1: Entity 'nope' not defined"),
        ("", "line 1: empty document"),
        ("<html><body>Sign in", "line 1: <body> is not closed"),
        ("<a b=c/>", "line 1: AttValue: \" or ' expected"),
    ])
    func malformedXMLSaysWhatAndWhere(input: String, message: String) {
        #expect(throws: DAVXMLError.self) { try DAVXML.parse(Data(input.utf8)) }
        do {
            _ = try DAVXML.parse(Data(input.utf8))
        } catch {
            #expect("\(error)" == message)
        }
    }

    @Test func deepNestingIsRefusedNotACrash() throws {
        let deep = String(repeating: "<a>", count: 10_000)
        #expect(throws: DAVXMLError.self) { try DAVXML.parse(Data(deep.utf8)) }
        let closed = String(repeating: "<a>", count: 500) + String(repeating: "</a>", count: 500)
        #expect(throws: DAVXMLError(line: 1, message: "Excessive depth in document: 256 use XML_PARSE_HUGE option")) {
            try DAVXML.parse(Data(closed.utf8))
        }
        let allowed = String(repeating: "<a>", count: 250) + String(repeating: "</a>", count: 250)
        #expect(try DAVXML.parse(Data(allowed.utf8)).children.count == 1)
    }

    /// Entity expansion bombs (general and parameter entities) are refused at the DOCTYPE, at once.
    @Test(arguments: [
        "<!DOCTYPE m [<!ENTITY a \"aaaaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\"><!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">"
            + "<!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\"><!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\"><!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">"
            + "<!ENTITY g \"&f;&f;&f;&f;&f;&f;&f;&f;&f;&f;\"><!ENTITY h \"&g;&g;&g;&g;&g;&g;&g;&g;&g;&g;\">]><m xmlns=\"DAV:\">&h;</m>",
        "<!DOCTYPE m [<!ENTITY % a \"aaaaaaaaaa\"><!ENTITY % b \"%a;%a;%a;%a;%a;%a;%a;%a;%a;%a;\"><!ENTITY % c \"%b;%b;%b;%b;%b;%b;%b;%b;%b;%b;\">"
            + "<!ENTITY % d \"%c;%c;%c;%c;%c;%c;%c;%c;%c;%c;\"><!ENTITY e \"%d;\">]><m xmlns=\"DAV:\">&e;</m>",
        "<!DOCTYPE m SYSTEM \"http://127.0.0.1:9/evil.dtd\"><m xmlns=\"DAV:\">&x;</m>",
    ])
    func entityBombsAndExternalDTDsAreRefused(input: String) {
        let start = Date()
        #expect(throws: DAVXMLError.self) { try DAVMultistatus(xml: Data(input.utf8), base: "http://127.0.0.1:1/") }
        #expect(Date().timeIntervalSince(start) < 2)
    }

    /// The streaming reader gives the same entries as the whole tree, for a 10,000-resource listing.
    @Test func aLargeMultistatusStreamsToTheSameEntriesAsTheTree() throws {
        var xml = "<?xml version=\"1.0\"?>\n<d:multistatus xmlns:d=\"DAV:\" xmlns:c=\"urn:ietf:params:xml:ns:caldav\">"
        for n in 0..<10_000 {
            xml += "<d:response><d:href>/ann/cal/e\(n).ics</d:href><d:propstat><d:prop><d:getetag>\"\(n)\"</d:getetag>"
                + "<c:calendar-data>BEGIN:VCALENDAR\r\nUID:e\(n) &amp; &lt;x&gt;\r\nEND:VCALENDAR\r\n</c:calendar-data></d:prop>"
                + "<d:status>HTTP/1.1 200 OK</d:status></d:propstat></d:response>\n"
        }
        xml += "<d:sync-token>http://radicale.org/ns/sync/9</d:sync-token></d:multistatus>"
        let data = Data(xml.utf8)
        let streamed = try DAVMultistatus(xml: data, base: "http://127.0.0.1:1/ann/cal/")
        #expect(streamed == (try DAVMultistatus(DAVXML.parse(data), base: "http://127.0.0.1:1/ann/cal/")))
        #expect(streamed.responses.count == 10_000 && streamed.syncToken == "http://radicale.org/ns/sync/9")
        // XML turns CRLF into LF; the calendar data gets its CRLFs back (a CR sent as &#13; is not doubled).
        #expect(streamed.responses[9_999].prop(DAVNamespace.caldav, "calendar-data")?.text == "BEGIN:VCALENDAR\nUID:e9999 & <x>\nEND:VCALENDAR\n")
        #expect(streamed.responses[9_999].calendarData == "BEGIN:VCALENDAR\r\nUID:e9999 & <x>\r\nEND:VCALENDAR\r\n")
        let escaped = try DAVMultistatus(xml: Data("<multistatus xmlns='DAV:' xmlns:C='urn:ietf:params:xml:ns:caldav'><response><href>/a.ics</href><propstat><prop><C:calendar-data>A&#13;\nB\r\n</C:calendar-data></prop><status>HTTP/1.1 200 OK</status></propstat></response></multistatus>".utf8), base: "http://127.0.0.1:1/")
        #expect(escaped.responses.first?.calendarData == "A\r\nB\r\n")
    }

    @Test func aDocumentThatIsNotAMultistatusIsRefused() {
        #expect(throws: DAVXMLError(line: 1, message: "expected <multistatus> in DAV:, got <html>")) {
            try DAVMultistatus(xml: Data("<html><body><p>Sign in</p></body></html>".utf8), base: "http://127.0.0.1:1/")
        }
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
