import DatebookCore
import Foundation

/// The feed's bytes, their weak ETag (a hash of the export made with a placeholder DTSTAMP: the
/// same planner, the same tag, whenever it was stamped) and the stamp as `Last-Modified`.
struct FeedDocument: Sendable, Equatable {
    var etag: String
    var body: [UInt8]
    var stamp: Date
    /// `Last-Modified`: the stamp as an HTTP date (made once: a formatter per 304 would cost more than the rest of it).
    var lastModified: String
    static let placeholderStamp = Date(timeIntervalSince1970: 0)

    /// `placeholderBody` with each `DTSTAMP:19700101T000000Z` line set to `stamp` (a line of its own:
    /// text values escape their line breaks, so no event text can start one).
    init(placeholderBody: [UInt8], etag: String, stamp: Date) {
        let seconds = stamp.timeIntervalSince1970.rounded(.down)
        self.stamp = Date(timeIntervalSince1970: seconds)
        self.etag = etag
        lastModified = Self.httpDate(self.stamp)
        let placeholder = Array("\r\nDTSTAMP:19700101T000000Z\r\n".utf8)
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let replacement = Array("\r\nDTSTAMP:\(formatter.string(from: self.stamp))\r\n".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(placeholderBody.count)
        var i = 0
        let count = placeholderBody.count, width = placeholder.count
        while i < count {
            if placeholderBody[i] == 13, i + width <= count, placeholderBody[i..<i + width].elementsEqual(placeholder) {
                out += replacement
                i += width - 2  // the closing CRLF starts the next line, which may be another match
                continue
            }
            out.append(placeholderBody[i])
            i += 1
        }
        body = out
    }

    /// `W/"hash-length"` of an export: FNV-1a over the bytes.
    static func contentTag(_ body: [UInt8]) -> String {
        let hash = EventID.fnv1a(body)
        return "W/\"" + String(hash, radix: 16) + "-" + String(body.count) + "\""
    }

    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// RFC 9110 section 13.1: `If-None-Match` with a weak comparison (`W/` ignored, `*` matches
    /// anything); only without it, `If-Modified-Since` (any of RFC 9110's three date forms, `HTTPDate`;
    /// `now` reads an RFC 850 two-digit year) at or after the stamp.
    static func notModified(_ document: FeedDocument, ifNoneMatch: String?, ifModifiedSince: String?, now: Date) -> Bool {
        if let ifNoneMatch {
            // A calendar app sends back the tag it was given: one comparison.
            if ifNoneMatch == document.etag { return true }
            let opaque = { (tag: String) -> String in tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
            return ifNoneMatch.split(separator: ",").contains { part in
                let tag = HeaderText.trimmed(part)
                return tag == "*" || opaque(tag) == opaque(document.etag)
            }
        }
        guard let ifModifiedSince else { return false }
        guard let since = HTTPDate.parse(ifModifiedSince, now: now) else { return false }
        return document.stamp <= since
    }
}
