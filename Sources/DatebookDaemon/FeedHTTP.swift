import DatebookDelivery
import DatebookInterchange
import DatebookStore
import Foundation

/// Fetches feeds over libcurl (DatebookDelivery's HTTPClient) for `FeedRefresher`: conditional GET with the stored
/// validators, https/http only, redirects only to https/http, TLS verified, timeouts, and a
/// 20 MB cap counted while downloading.
public enum FeedHTTP {
    public static let maxBytes = 20 << 20

    /// Why a download produced no usable body.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// A `fetch` closure for `FeedRefresher(store:timeZone:fetch:)`.
    public static func fetcher(client: HTTPClient, caInfo: String? = nil) -> (FeedFetchRequest) throws -> FeedFetchResult {
        { request in try fetch(request, client: client, caInfo: caInfo) }
    }

    static func fetch(_ request: FeedFetchRequest, client: HTTPClient, caInfo: String?) throws -> FeedFetchResult {
        let lowered = request.url.lowercased()
        guard lowered.hasPrefix("https://") || lowered.hasPrefix("http://") else {
            throw Failure(description: "only https:// and http:// URLs are fetched")
        }
        var headers = [HTTPRequest.Header("Accept", "text/calendar, application/json;q=0.5, */*;q=0.1")]
        if let etag = request.etag { headers.append(.init("If-None-Match", etag)) }
        if let lastModified = request.lastModified { headers.append(.init("If-Modified-Since", lastModified)) }
        let http = HTTPRequest(method: "GET", url: request.url, headers: headers, connectTimeout: 10, timeout: 60,
                               lowSpeedLimit: 1, lowSpeedTime: 20, maxResponseBytes: maxBytes, followRedirects: true,
                               caInfo: caInfo)
        switch client.perform(http) {
        case .failure(let error):
            if error.kind == .responseTooLarge {
                throw Failure(description: "larger than \(maxBytes >> 20) MB (\(error.destination)), download stopped")
            }
            throw Failure(description: error.description)
        case .success(let response):
            if response.status == 304 { return .notModified }
            guard response.isSuccess else {
                let from = response.redirectedTo.map { "\(redacted($0)) (redirected from \(redacted(request.url)))" }
                throw Failure(description: "HTTP \(response.status) from \(from ?? redacted(request.url))")
            }
            return .body(response.body, contentType: response.header("Content-Type"),
                         etag: response.header("ETag"), lastModified: response.header("Last-Modified"))
        }
    }

    /// The URL without query and fragment (they often carry a private token).
    public static func redacted(_ url: String) -> String {
        String(url.prefix { $0 != "?" && $0 != "#" })
    }
}
