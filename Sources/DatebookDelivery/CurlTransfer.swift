import CLoader
import Foundation

/// State of one running transfer: the easy handle plus the bytes received so far.
/// libcurl callbacks reach it through `Unmanaged` user data; the owner keeps it alive.
/// A pool may hand the same object (and so the same easy handle) to one transfer after
/// another: `prepare` clears everything the previous one left behind.
final class CurlTransfer {
    let easy: CurlEasy
    private(set) var url: String
    private(set) var redactions: [String]
    private(set) var maxResponseBytes: Int
    var body = Data()
    /// Raw header lines of the latest response, parsed only when the transfer finishes.
    private var headerBytes: [UInt8] = []
    var tooLarge = false
    /// Bytes still to upload (SMTP), consumed by the read callback.
    var upload = Data()
    var uploadOffset = 0

    /// The URL with secrets removed, as shown in errors; computed only when needed. After a
    /// redirect, the URL that failed, then the one asked for.
    var destination: String {
        guard let redirected = redirectedURL else { return redactURL(url) }
        let target = redactURL(redirected)
        let scheme = redirected.prefix { $0 != ":" }.lowercased()
        return (target == "****" ? scheme + "://****" : target) + " (redirected from \(redactURL(url)))"
    }

    /// The URL the transfer ended at when redirects took it away from `url`, else nil.
    var redirectedURL: String? {
        // Only HTTP redirects: an SMTP 3xx reply (354, "start mail input") is none.
        guard url.lowercased().hasPrefix("http") else { return nil }
        guard easy.long(CURLINFO_REDIRECT_COUNT) > 0 || easy.long(CURLINFO_RESPONSE_CODE) / 100 == 3 else { return nil }
        var pointer: UnsafeMutablePointer<CChar>?
        guard datebook_curl_easy_getinfo_string(easy.handle, CURLINFO_EFFECTIVE_URL, &pointer) == CURLE_OK, let pointer else {
            return nil
        }
        let effective = String(cString: pointer)
        return effective == url ? nil : effective
    }

    init(easy: CurlEasy, url: String, redactions: [String], maxResponseBytes: Int) {
        self.easy = easy
        self.url = url
        self.redactions = redactions
        self.maxResponseBytes = maxResponseBytes
    }

    /// Readies the object for the next transfer on the same easy handle.
    func prepare(url: String, redactions: [String], maxResponseBytes: Int) {
        self.url = url
        self.redactions = redactions
        self.maxResponseBytes = maxResponseBytes
        body.removeAll(keepingCapacity: true)
        headerBytes.removeAll(keepingCapacity: true)
        tooLarge = false
        upload = Data()
        uploadOffset = 0
    }

    /// Installs write and header callbacks pointing at `self`.
    func installReceiveCallbacks() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        datebook_curl_easy_setopt_writefunction(easy.handle) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            let length = size * count
            guard transfer.body.count + length <= transfer.maxResponseBytes else {
                transfer.tooLarge = true
                return 0
            }
            buffer.withMemoryRebound(to: UInt8.self, capacity: length) {
                transfer.body.append($0, count: length)
            }
            return length
        }
        datebook_curl_easy_setopt_pointer(easy.handle, CURLOPT_WRITEDATA, me)
        datebook_curl_easy_setopt_headerfunction(easy.handle) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            let length = size * count
            buffer.withMemoryRebound(to: UInt8.self, capacity: length) {
                transfer.receiveHeaderLine(UnsafeBufferPointer(start: $0, count: length))
            }
            return length
        }
        datebook_curl_easy_setopt_pointer(easy.handle, CURLOPT_HEADERDATA, me)
    }

    /// Installs a read callback that uploads `data` (used for SMTP).
    func installUpload(_ data: Data) {
        upload = data
        uploadOffset = 0
        let me = Unmanaged.passUnretained(self).toOpaque()
        datebook_curl_easy_setopt_readfunction(easy.handle) { buffer, size, count, userdata in
            guard let buffer, let userdata else { return datebook_CURL_READFUNC_ABORT }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(userdata).takeUnretainedValue()
            let remaining = transfer.upload.count - transfer.uploadOffset
            let length = min(size * count, remaining)
            guard length > 0 else { return 0 }
            let start = transfer.upload.startIndex + transfer.uploadOffset
            transfer.upload.copyBytes(
                to: UnsafeMutableRawPointer(buffer).assumingMemoryBound(to: UInt8.self),
                from: start..<(start + length))
            transfer.uploadOffset += length
            return length
        }
        datebook_curl_easy_setopt_pointer(easy.handle, CURLOPT_READDATA, me)
        easy.set(CURLOPT_UPLOAD, 1)
        easy.set(CURLOPT_INFILESIZE_LARGE, offset: Int64(data.count))
    }

    /// Keeps the raw bytes of one header line; a status line starts a new response
    /// (after 100 Continue or a redirect), so the previous response's lines are dropped.
    private func receiveHeaderLine(_ line: UnsafeBufferPointer<UInt8>) {
        if line.starts(with: Self.statusPrefix) {
            headerBytes.removeAll(keepingCapacity: true)
            return
        }
        headerBytes.append(contentsOf: line)
    }

    private static let statusPrefix: [UInt8] = Array("HTTP/".utf8)

    /// The kept lines as text, line ends dropped: for SMTP, every reply of the server in order
    /// (libcurl hands them to the header callback).
    var replyLines: [String] {
        headerBytes.split(separator: UInt8(ascii: "\n")).map { String(decoding: Self.trimmed($0), as: UTF8.self) }
    }

    /// The kept header lines as name/value pairs, whitespace trimmed, lines without a colon skipped.
    var headers: [HTTPRequest.Header] {
        var result: [HTTPRequest.Header] = []
        for line in headerBytes.split(separator: UInt8(ascii: "\n")) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = Self.trimmed(line[line.startIndex..<colon])
            let value = Self.trimmed(line[(colon + 1)...])
            result.append(HTTPRequest.Header(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
        }
        return result
    }

    private static func trimmed(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) })
        else { return [] }
        return bytes[first...last]
    }

    /// Turns a finished transfer into a response or a classified, secret-free error.
    func finish(_ code: CURLcode) -> Result<HTTPResponse, TransportError> {
        guard code == CURLE_OK else { return .failure(error(for: code)) }
        var micros: curl_off_t = 0
        _ = datebook_curl_easy_getinfo_off_t(easy.handle, CURLINFO_TOTAL_TIME_T, &micros)
        return .success(
            HTTPResponse(
                status: easy.long(CURLINFO_RESPONSE_CODE), headers: headers, body: body,
                totalTime: TimeInterval(micros) / 1_000_000, redirectedTo: redirectedURL))
    }

    func error(for code: CURLcode) -> TransportError {
        let kind: TransportError.Kind = tooLarge ? .responseTooLarge : Self.classify(code)
        let detail = scrub(easy.errorMessage(for: code), url: url, secrets: redactions)
        return TransportError(
            kind: kind, destination: destination, curlCode: Int(code.rawValue), detail: detail)
    }

    static func classify(_ code: CURLcode) -> TransportError.Kind {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return .timedOut
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .dnsFailed
        case CURLE_COULDNT_CONNECT, CURLE_GOT_NOTHING, CURLE_SEND_ERROR, CURLE_RECV_ERROR,
            CURLE_PARTIAL_FILE, CURLE_HTTP2, CURLE_HTTP2_STREAM:
            return .connectionFailed
        case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CERTPROBLEM,
            CURLE_SSL_CIPHER, CURLE_SSL_CACERT_BADFILE, CURLE_USE_SSL_FAILED,
            CURLE_SSL_ENGINE_NOTFOUND, CURLE_SSL_ISSUER_ERROR, CURLE_SSL_PINNEDPUBKEYNOTMATCH:
            return .tlsFailed
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT, CURLE_TOO_MANY_REDIRECTS:
            return .protocolRefused
        case CURLE_FILESIZE_EXCEEDED: return .responseTooLarge
        case CURLE_LOGIN_DENIED: return .loginDenied
        default: return .other
        }
    }
}
