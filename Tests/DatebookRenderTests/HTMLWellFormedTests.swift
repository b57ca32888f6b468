import DatebookRender
import Foundation
import Testing

/// Parses the HTML digests with Python's html.parser: balanced tags, no scripts, no external
/// resources (links to follow only as `<a href>` with http, https, mailto or tel), CSS only inline
/// or in one self-contained `<style>` in `<head>` (the dark-scheme colours).
struct HTMLWellFormedTests {
    static let checker = #"""
    import sys
    from html.parser import HTMLParser
    VOID = {"meta", "br", "img", "input", "hr", "link", "col", "wbr", "area", "base", "source"}
    class Check(HTMLParser):
        def __init__(self):
            super().__init__(convert_charrefs=True)
            self.stack, self.errors = [], []
        def handle_starttag(self, tag, attrs):
            if tag in ("script", "iframe", "object", "embed", "link"):
                self.errors.append("forbidden <%s>" % tag)
            if tag == "style" and [t for t, _ in self.stack] != ["html", "head"]:
                self.errors.append("<style> outside <head>")
            for name, value in attrs:
                if name.startswith("on"):
                    self.errors.append("event handler %s" % name)
                # A link the reader follows (an event's URL) is not a resource the mail client fetches.
                link = tag == "a" and name == "href" and value and value.split(":")[0] in ("http", "https", "mailto", "tel")
                if name in ("src", "href", "background", "action") and value and (":" in value or value.startswith("//")) and not link:
                    self.errors.append("external %s=%s" % (name, value))
            if tag not in VOID:
                self.stack.append((tag, self.getpos()))
        def handle_startendtag(self, tag, attrs):
            self.handle_starttag(tag, attrs)
            if tag not in VOID:
                self.stack.pop()
        def handle_data(self, data):
            # A style block is self-contained: no fetched resources, no script.
            if self.stack and self.stack[-1][0] == "style":
                for word in ("url(", "@import", "expression(", "javascript:"):
                    if word in data.lower():
                        self.errors.append("external or active CSS: %s" % word)
        def handle_endtag(self, tag):
            if not self.stack or self.stack[-1][0] != tag:
                self.errors.append("unbalanced </%s> at %s (open: %s)" % (tag, self.getpos(), self.stack[-1:] ))
            else:
                self.stack.pop()
    c = Check()
    c.feed(sys.stdin.read())
    c.close()
    if c.stack:
        c.errors.append("unclosed %s" % c.stack)
    print("\n".join(c.errors))
    sys.exit(1 if c.errors else 0)
    """#

    static func check(_ html: String) throws -> (code: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", checker]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(html.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test(arguments: ["en_US", "de_DE", "ja_JP"])
    func htmlDigestIsWellFormedAndSelfContained(locale: String) throws {
        let hostile = DigestFixtures.event("<script>x</script> </td></tr> [a](javascript:x)", tasks: ["<img src=http://x>", "שלום"])
        let html = try DigestFixtures.render(.html, locale: locale, extra: [hostile])
        let result = try Self.check(html)
        #expect(result.code == 0, "\(result.output)")
        let fromMarkdown = try DigestRenderer(overrideDirectory: nil)
            .renderHTMLFromMarkdown(try DigestFixtures.context(locale: locale, extra: [hostile]))
        let second = try Self.check(fromMarkdown)
        #expect(second.code == 0, "\(second.output)")
    }

    @Test func checkerCatchesBrokenHTML() throws {
        #expect(try Self.check("<html><body><td></body></html>").code == 1)
        #expect(try Self.check("<html><body><script></script></body></html>").code == 1)
        #expect(try Self.check("<html><body><img src=\"https://x/y.png\"></body></html>").code == 1)
        #expect(try Self.check("<html><body><style>p {}</style></body></html>").code == 1)
        #expect(try Self.check("<html><head><style>p { background: url(https://x/y.png) }</style></head></html>").code == 1)
        #expect(try Self.check("<html><head><style>@media (prefers-color-scheme: dark) { p { color: #fff } }</style></head></html>").code == 0)
    }
}
