import CCurl
import Foundation

/// State of one running transfer: the easy handle plus the bytes received so far.
/// libcurl callbacks reach it through `Unmanaged` user data; the owner keeps it alive.
final class CurlTransfer {
    let easy: CurlEasy
    let destination: String
    let url: String
    let redactions: [String]
    let maxResponseBytes: Int
    var body = Data()
    var headers: [HTTPRequest.Header] = []
    var tooLarge = false
    /// Bytes still to upload (SMTP), consumed by the read callback.
    var upload = Data()
    var uploadOffset = 0

    init(easy: CurlEasy, url: String, redactions: [String], maxResponseBytes: Int) {
        self.easy = easy
        self.url = url
        self.destination = redactURL(url)
        self.redactions = redactions
        self.maxResponseBytes = maxResponseBytes
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
            let line = buffer.withMemoryRebound(to: UInt8.self, capacity: length) {
                String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
            }
            transfer.receiveHeaderLine(line)
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

    private func receiveHeaderLine(_ raw: String) {
        let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headers = []  // a new response (after 100 Continue or a redirect) starts
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        headers.append(HTTPRequest.Header(name, value))
    }

    /// Turns a finished transfer into a response or a classified, secret-free error.
    func finish(_ code: CURLcode) -> Result<HTTPResponse, TransportError> {
        guard code == CURLE_OK else { return .failure(error(for: code)) }
        var micros: curl_off_t = 0
        _ = datebook_curl_easy_getinfo_off_t(easy.handle, CURLINFO_TOTAL_TIME_T, &micros)
        return .success(
            HTTPResponse(
                status: easy.long(CURLINFO_RESPONSE_CODE), headers: headers, body: body,
                totalTime: TimeInterval(micros) / 1_000_000))
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
