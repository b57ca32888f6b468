import CCurl
import Foundation

/// Sends many HTTP requests concurrently over one libcurl multi handle.
///
/// The multi handle keeps a connection cache, so consecutive calls to `perform` reuse
/// keep-alive connections. Every transfer has a connect timeout, a total timeout and a
/// low-speed abort, is restricted to http/https (also for redirects) and verifies TLS
/// unless the request says `insecure`. Each transfer completes on its own: a dead
/// destination only holds up its own result, never the `onCompletion` of the others.
/// Calls to `perform` are serialised; run them off the main thread.
public final class HTTPClient: @unchecked Sendable {
    private let multi: CurlMulti?
    private let lock = NSLock()
    private let userAgent: String

    /// - Parameters:
    ///   - maxHostConnections: cap on parallel connections to one host
    ///     (`CURLMOPT_MAX_HOST_CONNECTIONS`); extra transfers wait for a free one.
    ///   - maxTotalConnections: cap over all hosts.
    public init(maxHostConnections: Int = 6, maxTotalConnections: Int = 32, userAgent: String = "datebook") {
        multi = CurlMulti(maxHostConnections: maxHostConnections, maxTotalConnections: maxTotalConnections)
        self.userAgent = userAgent
    }

    /// Sends one request and waits for its result.
    public func perform(_ request: HTTPRequest) -> Result<HTTPResponse, TransportError> {
        perform([request])[0]
    }

    /// Sends all requests concurrently; returns results in the order of `requests`.
    /// `onCompletion(index, result)` is called (on this thread) as soon as each one finishes.
    public func perform(
        _ requests: [HTTPRequest],
        onCompletion: (Int, Result<HTTPResponse, TransportError>) -> Void = { _, _ in }
    ) -> [Result<HTTPResponse, TransportError>] {
        lock.lock()
        defer { lock.unlock() }
        var results = requests.map { request -> Result<HTTPResponse, TransportError> in
            .failure(TransportError(kind: .setupFailed, destination: redactURL(request.url)))
        }
        guard let multi else {
            for index in requests.indices { onCompletion(index, results[index]) }
            return results
        }
        var running: [OpaquePointer: (index: Int, transfer: CurlTransfer)] = [:]
        for (index, request) in requests.enumerated() {
            guard let transfer = makeTransfer(for: request),
                curl_multi_add_handle(multi.handle, transfer.easy.handle) == CURLM_OK
            else {
                onCompletion(index, results[index])
                continue
            }
            running[transfer.easy.handle] = (index, transfer)
        }
        var stillRunning: Int32 = 0
        while !running.isEmpty {
            let status = curl_multi_perform(multi.handle, &stillRunning)
            collectFinished(multi: multi, running: &running, results: &results, onCompletion: onCompletion)
            guard status == CURLM_OK else { break }
            if stillRunning == 0 { break }
            _ = curl_multi_poll(multi.handle, nil, 0, 200, nil)
        }
        // Anything left after a multi-level failure is reported as failed, not dropped.
        for (handle, entry) in running {
            curl_multi_remove_handle(multi.handle, handle)
            onCompletion(entry.index, results[entry.index])
        }
        return results
    }

    private func collectFinished(
        multi: CurlMulti,
        running: inout [OpaquePointer: (index: Int, transfer: CurlTransfer)],
        results: inout [Result<HTTPResponse, TransportError>],
        onCompletion: (Int, Result<HTTPResponse, TransportError>) -> Void
    ) {
        var queued: Int32 = 0
        while let message = curl_multi_info_read(multi.handle, &queued) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                let entry = running.removeValue(forKey: handle)
            else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi.handle, handle)
            let result = entry.transfer.finish(code)
            results[entry.index] = result
            onCompletion(entry.index, result)
        }
    }

    private func makeTransfer(for request: HTTPRequest) -> CurlTransfer? {
        guard let easy = CurlEasy() else { return nil }
        let transfer = CurlTransfer(
            easy: easy, url: request.url, redactions: request.redactions,
            maxResponseBytes: request.maxResponseBytes)
        guard easy.set(CURLOPT_URL, request.url) == CURLE_OK else { return nil }
        CurlOptions.applySafetyDefaults(
            easy, protocols: "http,https", connectTimeout: request.connectTimeout,
            timeout: request.timeout, lowSpeedLimit: request.lowSpeedLimit,
            lowSpeedTime: request.lowSpeedTime, insecure: request.insecure, caInfo: request.caInfo)
        easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        easy.set(CURLOPT_FOLLOWLOCATION, request.followRedirects ? 1 : 0)
        easy.set(CURLOPT_MAXREDIRS, 5)
        easy.set(CURLOPT_USERAGENT, userAgent)
        easy.set(CURLOPT_MAXFILESIZE_LARGE, offset: Int64(request.maxResponseBytes))
        let method = request.method.uppercased()
        switch method {
        case "GET" where request.body.isEmpty:
            easy.set(CURLOPT_HTTPGET, 1)
        case "HEAD":
            easy.set(CURLOPT_NOBODY, 1)
        default:
            easy.set(CURLOPT_POST, 1)
            easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(request.body.count))
            var bytes = [UInt8](request.body)
            bytes.append(0)  // harmless terminator; the size above is authoritative
            bytes.withUnsafeMutableBytes {
                _ = datebook_curl_easy_setopt_pointer(easy.handle, CURLOPT_COPYPOSTFIELDS, $0.baseAddress)
            }
            if method != "POST" { easy.set(CURLOPT_CUSTOMREQUEST, method) }
        }
        let lines = request.headers.map { "\($0.name.strippingLineBreaks): \($0.value.strippingLineBreaks)" }
        easy.set(CURLOPT_HTTPHEADER, list: lines + ["Expect:"])
        transfer.installReceiveCallbacks()
        return transfer
    }
}

/// Options every datebook transfer gets, whatever the protocol.
enum CurlOptions {
    static func applySafetyDefaults(
        _ easy: CurlEasy, protocols: String, connectTimeout: TimeInterval, timeout: TimeInterval,
        lowSpeedLimit: Int, lowSpeedTime: Int, insecure: Bool, caInfo: String?
    ) {
        easy.set(CURLOPT_NOSIGNAL, 1)
        easy.set(CURLOPT_PROTOCOLS_STR, protocols)
        easy.set(CURLOPT_CONNECTTIMEOUT_MS, max(1, Int(connectTimeout * 1000)))
        easy.set(CURLOPT_TIMEOUT_MS, max(1, Int(timeout * 1000)))
        easy.set(CURLOPT_LOW_SPEED_LIMIT, max(1, lowSpeedLimit))
        easy.set(CURLOPT_LOW_SPEED_TIME, max(1, lowSpeedTime))
        easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        easy.set(CURLOPT_SSL_VERIFYPEER, insecure ? 0 : 1)
        easy.set(CURLOPT_SSL_VERIFYHOST, insecure ? 0 : 2)
        if let caInfo { easy.set(CURLOPT_CAINFO, caInfo) }
    }
}

extension String {
    /// The string with CR, LF and NUL removed, safe for one header line.
    var strippingLineBreaks: String {
        String(unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" && $0 != "\u{2028}" && $0 != "\u{2029}" && $0 != "\u{85}" })
    }
}
