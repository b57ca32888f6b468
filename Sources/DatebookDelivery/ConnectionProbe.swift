import CLoader
import Foundation

/// Checks that a destination's host resolves, takes a connection and, for `https`/`smtps`,
/// shows a certificate that verifies, without sending a request (`CURLOPT_CONNECT_ONLY`).
///
/// `datebook doctor` asks it about each channel: nothing reaches the service, so a webhook sees
/// no message and a mail server no envelope.
public struct ConnectionProbe: Sendable {
    public var timeout: TimeInterval

    public init(timeout: TimeInterval = 10) {
        self.timeout = timeout
    }

    /// The origin of `url` (`https://host:port/`): what is probed, without path or query, which
    /// may hold a secret.
    public static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else { return nil }
        let bracketed = host.contains(":") ? "[" + host + "]" : host
        return scheme + "://" + bracketed + (components.port.map { ":\($0)" } ?? "") + "/"
    }

    /// Connects to the origin of `url` and closes again; a failure says which step failed
    /// (`host not found`, `connection failed`, `TLS failed`) with secrets removed.
    public func check(url: String, caFile: String?, insecure: Bool) -> Result<Void, TransportError> {
        guard let origin = Self.origin(of: url) else {
            return .failure(TransportError(kind: .protocolRefused, destination: redactURL(url), detail: "not a URL with a host"))
        }
        guard let easy = CurlEasy() else {
            return .failure(TransportError(kind: .setupFailed, destination: origin, detail: CurlGlobal.problem))
        }
        easy.set(CURLOPT_URL, origin)
        easy.set(CURLOPT_CONNECT_ONLY, 1)
        CurlOptions.applySafetyDefaults(easy, protocols: "http,https,smtp,smtps", connectTimeout: timeout, timeout: timeout,
                                        lowSpeedLimit: 1, lowSpeedTime: Int(timeout.rounded(.up)), insecure: insecure, caInfo: caFile)
        let code = datebook_curl_easy_perform(easy.handle)
        guard code == CURLE_OK else {
            return .failure(TransportError(kind: CurlTransfer.classify(code), destination: origin, curlCode: Int(code.rawValue),
                                           detail: easy.errorMessage(for: code)))
        }
        return .success(())
    }
}
