import DatebookDelivery
import Foundation

/// Why talking to a CalDAV server failed. Never contains the password (URLs are shown without
/// user info; `caldav add` refuses URLs that carry one).
public enum CalDAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401 (or 403 on a PROPFIND): the server refused the username or password.
    case unauthorized(url: String)
    /// No HTTP answer at all (refused, timed out, TLS).
    case unreachable(TransportError)
    /// An answer, but not WebDAV: an HTML page, or no multistatus where one was due.
    case notCalDAV(url: String, reason: String)
    /// A multistatus that is not well-formed XML.
    case malformed(url: String, DAVXMLError)
    /// Any other status where success was due.
    case status(url: String, method: String, code: Int)
    /// Discovery found no calendar collection.
    case noCalendars(url: String)

    public var description: String {
        switch self {
        case .unauthorized(let url):
            "\(url): the server refused the username or password (401); check them, then 'datebook caldav sync' again"
        case .unreachable(let error) where error.kind == .tlsFailed:
            "\(error) (certificate not trusted or TLS unavailable); check the server's certificate, or trust it with the account's "
                + "caFile (the config's caldav caFile, or 'caldav add --ca-file PATH')"
        case .unreachable(let error):
            "\(error); check the URL and that the server is up"
        case let .notCalDAV(url, reason):
            "\(url): not a CalDAV server (\(reason)); give the CalDAV address (often https://host/dav/ or /remote.php/dav/), not a web page"
        case let .malformed(url, error):
            "\(url): the server's XML is malformed at \(error); nothing was changed"
        case let .status(url, method, code):
            "\(url): \(method) answered HTTP \(code)"
        case .noCalendars(let url):
            "\(url): no calendars found under this account"
        }
    }

    /// True when the server refused the login (401, or 403): the same password would be refused
    /// again, so the scheduler does not retry until the account's settings change.
    public var refusesLogin: Bool {
        switch self {
        case .unauthorized: true
        case .status(_, _, let code): code == 401 || code == 403
        default: false
        }
    }

    /// True when the server (or the login) is the problem rather than the data: exit 69.
    public var isUnavailable: Bool {
        switch self {
        case .unauthorized, .unreachable: true
        case .status(_, _, let code): code >= 500 || code == 401 || code == 403
        case .notCalDAV, .malformed, .noCalendars: false
        }
    }
}
