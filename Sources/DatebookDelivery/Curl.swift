import CLoader
import Foundation

/// Process-wide libcurl initialisation, run exactly once (Swift globals are lazily
/// initialised under `swift_once`, which is thread-safe).
enum CurlGlobal {
    private static let initialised: Bool = datebook_curl_global_init(datebook_CURL_GLOBAL_ALL) == CURLE_OK

    /// Call before creating any handle; returns false when libcurl could not start.
    @discardableResult
    static func ensureInitialised() -> Bool { initialised }

    /// Human-readable text for a libcurl result code.
    static func describe(_ code: CURLcode) -> String {
        guard let text = datebook_curl_easy_strerror(code) else { return "curl error \(code.rawValue)" }
        return String(cString: text)
    }

    /// Why libcurl cannot be used, naming it and its Debian package; "" when it was loaded (or
    /// could not make a handle for another reason, such as memory).
    static var problem: String { String(cString: datebook_library_problem(DATEBOOK_LIBRARY_CURL)) }
}

/// Entry point for the CLI: starts libcurl once, early, before worker threads exist.
/// Every client also calls it, so forgetting it is harmless.
public enum DeliveryRuntime {
    /// Returns false when libcurl failed to initialise (then every transfer fails with `.setupFailed`).
    @discardableResult
    public static func start() -> Bool { CurlGlobal.ensureInitialised() }

    /// libcurl's version text, e.g. `libcurl/7.88.1 OpenSSL/3.0.x …`, for `datebook --version`.
    public static var curlVersion: String {
        guard let text = datebook_curl_version() else { return "libcurl" }
        return String(cString: text)
    }
}

/// Owns one `curl_slist` (header lines, recipients) and frees it in `deinit`.
final class CurlStringList {
    private(set) var pointer: UnsafeMutablePointer<curl_slist>?

    init(_ items: [String]) {
        for item in items {
            if let next = datebook_curl_slist_append(pointer, item) { pointer = next }
        }
    }

    deinit { datebook_curl_slist_free_all(pointer) }
}

/// Owns one libcurl easy handle and frees it in `deinit`.
final class CurlEasy {
    let handle: OpaquePointer
    /// Buffer curl fills with a detailed error message (`CURLOPT_ERRORBUFFER`).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var lists: [CurlStringList] = []
    /// The last header list set with `set(_:reusableList:)`, kept so identical lines are not rebuilt.
    private var reusableList: (items: [String], list: CurlStringList)?

    init?() {
        CurlGlobal.ensureInitialised()
        guard let handle = datebook_curl_easy_init() else { return nil }
        self.handle = handle
        let size = Int(datebook_CURL_ERROR_SIZE) + 1
        errorBuffer = UnsafeMutablePointer<CChar>.allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
        _ = datebook_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// Returns every option to its default (`curl_easy_reset`) so the handle can carry another
    /// transfer; live connections, the DNS cache and TLS sessions survive, which is why reuse is cheap.
    func reset() {
        datebook_curl_easy_reset(handle)
        errorBuffer[0] = 0
        lists.removeAll(keepingCapacity: true)
        _ = datebook_curl_easy_setopt_pointer(handle, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        datebook_curl_easy_cleanup(handle)
        errorBuffer.deallocate()
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: Int) -> CURLcode {
        datebook_curl_easy_setopt_long(handle, option, value)
    }

    @discardableResult
    func set(_ option: CURLoption, _ value: String) -> CURLcode {
        datebook_curl_easy_setopt_string(handle, option, value)
    }

    @discardableResult
    func set(_ option: CURLoption, offset value: Int64) -> CURLcode {
        datebook_curl_easy_setopt_off_t(handle, option, curl_off_t(value))
    }

    /// Sets a list option; the list lives as long as this handle.
    @discardableResult
    func set(_ option: CURLoption, list items: [String]) -> CURLcode {
        let list = CurlStringList(items)
        lists.append(list)
        return datebook_curl_easy_setopt_slist(handle, option, list.pointer)
    }

    /// Sets a list option, reusing the list from the previous call when the lines are the same
    /// (webhook requests to one destination repeat their headers).
    @discardableResult
    func set(_ option: CURLoption, reusableList items: [String]) -> CURLcode {
        if let cached = reusableList, cached.items == items {
            return datebook_curl_easy_setopt_slist(handle, option, cached.list.pointer)
        }
        let list = CurlStringList(items)
        reusableList = (items, list)
        return datebook_curl_easy_setopt_slist(handle, option, list.pointer)
    }

    func long(_ info: CURLINFO) -> Int {
        var value = 0
        _ = datebook_curl_easy_getinfo_long(handle, info, &value)
        return value
    }

    /// The detailed message curl wrote for the last failure, or the generic text for `code`.
    func errorMessage(for code: CURLcode) -> String {
        let detail = String(cString: errorBuffer)
        return detail.isEmpty ? CurlGlobal.describe(code) : detail
    }
}

/// Owns one libcurl multi handle (and with it the connection cache) and frees it in `deinit`.
final class CurlMulti {
    let handle: OpaquePointer

    init?(maxHostConnections: Int, maxTotalConnections: Int) {
        CurlGlobal.ensureInitialised()
        guard let handle = datebook_curl_multi_init() else { return nil }
        self.handle = handle
        _ = datebook_curl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, maxHostConnections)
        _ = datebook_curl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, maxTotalConnections)
        _ = datebook_curl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, max(maxTotalConnections, 8))
    }

    deinit { datebook_curl_multi_cleanup(handle) }
}
