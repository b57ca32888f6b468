import CLoader
import Foundation

/// Sends many HTTP requests concurrently over one libcurl multi handle.
///
/// The multi handle keeps a connection cache, so consecutive calls to `perform` reuse
/// keep-alive connections. Every transfer has a connect timeout, a total timeout and a
/// low-speed abort, is restricted to http/https (also for redirects) and verifies TLS
/// unless the request says `insecure`. Each transfer completes on its own: a dead
/// destination only holds up its own result, never the `onCompletion` of the others.
/// Calls to `perform` are serialised; run them off the main thread.
public final class HTTPClient: @unchecked Sendable {  // owns the curl multi handle and its easy handles, guarded by `lock`
    /// Made by the first `perform` (under `lock`): making it loads libcurl, which a client that
    /// never sends (`preview`, dry runs) does not need.
    private lazy var multi: CurlMulti? = CurlMulti(maxHostConnections: limits.host, maxTotalConnections: limits.total)
    private let limits: (host: Int, total: Int)
    private let lock = NSLock()
    private let userAgent: String
    private let maxHostConnections: Int
    private let maxTotalConnections: Int

    /// The most transfers this client runs at once (over all hosts).
    public var maxTransfers: Int { maxTotalConnections }
    /// The most transfers this client runs at once to one host.
    public var maxTransfersPerHost: Int { maxHostConnections }
    /// The multi handle once made, for `wakeUp()` from other threads (guarded by `wakeLock`, not
    /// `lock`, which `perform` holds while it waits).
    private var wakeHandle: OpaquePointer?
    private let wakeLock = NSLock()
    /// Idle transfers (each owning an easy handle) kept between requests and calls: reusing a
    /// handle skips its setup and teardown. Guarded by `lock`, like everything `perform` touches.
    private var idle: [CurlTransfer] = []

    /// - Parameters:
    ///   - maxHostConnections: cap on parallel connections to one host
    ///     (`CURLMOPT_MAX_HOST_CONNECTIONS`); extra transfers wait for a free one.
    ///   - maxTotalConnections: cap over all hosts.
    public init(maxHostConnections: Int = 6, maxTotalConnections: Int = 32, userAgent: String = "datebook") {
        limits = (maxHostConnections, maxTotalConnections)
        self.userAgent = userAgent
        // As for libcurl, 0 means no cap.
        self.maxHostConnections = maxHostConnections > 0 ? maxHostConnections : Int.max
        self.maxTotalConnections = maxTotalConnections > 0 ? maxTotalConnections : Int.max
    }

    /// Sends one request and waits for its result.
    public func perform(_ request: HTTPRequest) -> Result<HTTPResponse, TransportError> {
        perform([request])[0]
    }

    /// Sends all requests concurrently; returns results in the order of `requests`.
    /// `onCompletion(index, result)` is called (on this thread) as soon as each one finishes;
    /// `beforeNextTransfers()` on every turn of the transfer loop (after each group of completions,
    /// at least every 200 ms, and at once after `wakeUp()`), always before a waiting request takes
    /// a freed connection (the scheduler records accepted deliveries there).
    ///
    /// Only as many transfers as could hold a connection are handed to libcurl at a time (per
    /// host and in total); the rest wait here in order, one queue per host, so a slow host's
    /// backlog never takes the place of another host's requests.
    ///
    /// `mayStart` gets the indices of the requests about to take connections, each group once,
    /// just before they start, and returns those that may; a refused request is never sent and
    /// gets no `onCompletion` (the scheduler's fence: a claim lost while the process was held up).
    /// It is asked on every turn, after `beforeNextTransfers` and before the loop waits again, with
    /// no indices when nothing starts: a caller may hold what `beforeNextTransfers` gave it and
    /// write it there, with the fence of the transfers that start next, in one go.
    public func perform(
        _ requests: [HTTPRequest],
        onCompletion: (Int, Result<HTTPResponse, TransportError>) -> Void = { _, _ in },
        beforeNextTransfers: () -> Void = {},
        mayStart: ([Int]) -> Set<Int> = { Set($0) }
    ) -> [Result<HTTPResponse, TransportError>] {
        lock.lock()
        defer { lock.unlock() }
        var results = [Result<HTTPResponse, TransportError>?](repeating: nil, count: requests.count)
        func setupFailure(_ index: Int) -> Result<HTTPResponse, TransportError> {
            .failure(TransportError(kind: .setupFailed, destination: redactURL(requests[index].url), detail: CurlGlobal.problem))
        }
        guard let multi else {
            for index in requests.indices {
                results[index] = setupFailure(index)
                onCompletion(index, setupFailure(index))
            }
            return requests.indices.map(setupFailure)
        }
        wakeLock.withLock { wakeHandle = multi.handle }
        var waiting = HostQueues(requests.indices.map { Self.hostKey(requests[$0].url) })
        var running: [OpaquePointer: (index: Int, transfer: CurlTransfer)] = [:]
        var runningPerHost: [Int: Int] = [:]
        func admit() {
            var asked = false
            while true {
                // Those that would take the free connections, asked about together.
                var candidates: [Int] = []
                var taken = runningPerHost
                while running.count + candidates.count < maxTotalConnections,
                    let index = waiting.next(where: { taken[$0, default: 0] < maxHostConnections })
                {
                    candidates.append(index)
                    taken[waiting.host(of: index), default: 0] += 1
                }
                guard !candidates.isEmpty || !asked else { return }
                asked = true
                let allowed = mayStart(candidates)
                for index in candidates {
                    guard allowed.contains(index) else {
                        results[index] = setupFailure(index)
                        continue
                    }
                    guard let transfer = makeTransfer(for: requests[index]),
                        datebook_curl_multi_add_handle(multi.handle, transfer.easy.handle) == CURLM_OK
                    else {
                        results[index] = setupFailure(index)
                        onCompletion(index, setupFailure(index))
                        continue
                    }
                    running[transfer.easy.handle] = (index, transfer)
                    runningPerHost[waiting.host(of: index), default: 0] += 1
                }
                // Refused or failed ones left connections free: the next turn fills them.
            }
        }
        admit()
        var stillRunning: Int32 = 0
        while !running.isEmpty {
            let status = datebook_curl_multi_perform(multi.handle, &stillRunning)
            var queued: Int32 = 0
            var finishedAny = false
            while let message = datebook_curl_multi_info_read(multi.handle, &queued) {
                guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle,
                    let entry = running.removeValue(forKey: handle)
                else { continue }
                let code = message.pointee.data.result
                datebook_curl_multi_remove_handle(multi.handle, handle)
                runningPerHost[waiting.host(of: entry.index), default: 1] -= 1
                let result = entry.transfer.finish(code)
                idle.append(entry.transfer)
                results[entry.index] = result
                onCompletion(entry.index, result)
                finishedAny = true
            }
            beforeNextTransfers()
            guard status == CURLM_OK else { break }
            admit()
            // New transfers start on the next curl_multi_perform, without waiting.
            if finishedAny { continue }
            if stillRunning == 0 { break }
            _ = datebook_curl_multi_poll(multi.handle, nil, 0, 200, nil)
        }
        // Anything left after a multi-level failure is reported as failed, not dropped.
        for (handle, entry) in running {
            datebook_curl_multi_remove_handle(multi.handle, handle)
            results[entry.index] = setupFailure(entry.index)
            onCompletion(entry.index, setupFailure(entry.index))
        }
        for index in waiting.remaining() {
            results[index] = setupFailure(index)
            onCompletion(index, setupFailure(index))
        }
        return results.indices.map { results[$0] ?? setupFailure($0) }
    }

    /// Makes a `perform` waiting on the network on another thread turn its loop at once (and so
    /// call its `beforeNextTransfers`). Safe from any thread; does nothing before the first `perform`.
    public func wakeUp() {
        wakeLock.withLock {
            if let wakeHandle { _ = datebook_curl_multi_wakeup(wakeHandle) }
        }
    }

    /// `scheme://authority` in lower case: the part of a URL that decides which connection it uses.
    static func hostKey(_ url: String) -> String {
        let utf8 = url.utf8
        var slashes = 0
        var end = utf8.endIndex
        for position in utf8.indices where utf8[position] == UInt8(ascii: "/") {
            slashes += 1
            if slashes == 3 {
                end = position
                break
            }
        }
        return String(decoding: utf8[utf8.startIndex..<end], as: UTF8.self).lowercased()
    }

    private func makeTransfer(for request: HTTPRequest) -> CurlTransfer? {
        let transfer: CurlTransfer
        if let reused = idle.popLast() {
            reused.easy.reset()
            reused.prepare(url: request.url, redactions: request.redactions, maxResponseBytes: request.maxResponseBytes)
            transfer = reused
        } else {
            guard let easy = CurlEasy() else { return nil }
            transfer = CurlTransfer(
                easy: easy, url: request.url, redactions: request.redactions,
                maxResponseBytes: request.maxResponseBytes)
        }
        let easy = transfer.easy
        guard easy.set(CURLOPT_URL, request.url) == CURLE_OK else {
            idle.append(transfer)
            return nil
        }
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
        case "DELETE" where request.body.isEmpty:
            // No body, so no Content-Length or form Content-Type either (WebDAV's DELETE with If-Match).
            easy.set(CURLOPT_HTTPGET, 1)
            easy.set(CURLOPT_CUSTOMREQUEST, method)
        default:
            easy.set(CURLOPT_POST, 1)
            easy.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: Int64(request.body.count))
            if request.body.isEmpty {
                var terminator: UInt8 = 0  // curl copies POSTFIELDSIZE (0) bytes from a non-null pointer
                _ = datebook_curl_easy_setopt_pointer(easy.handle, CURLOPT_COPYPOSTFIELDS, &terminator)
            } else {
                request.body.withUnsafeBytes {
                    _ = datebook_curl_easy_setopt_pointer(
                        easy.handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: $0.baseAddress))
                }
            }
            if method != "POST" { easy.set(CURLOPT_CUSTOMREQUEST, method) }
        }
        let lines = request.headers.map { "\($0.name.strippingLineBreaks): \($0.value.strippingLineBreaks)" }
        easy.set(CURLOPT_HTTPHEADER, reusableList: lines + ["Expect:"])
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
    public var strippingLineBreaks: String {
        // Fast path: none of the bytes that start CR, LF, NUL, U+0085 (C2 85) or U+2028/9 (E2 80 A8/9).
        guard utf8.contains(where: { $0 == 0x0D || $0 == 0x0A || $0 == 0 || $0 == 0xC2 || $0 == 0xE2 }) else { return self }
        return String(unicodeScalars.filter { $0 != "\r" && $0 != "\n" && $0 != "\0" && $0 != "\u{2028}" && $0 != "\u{2029}" && $0 != "\u{85}" })
    }
}
