import DatebookDelivery
import DatebookServer
import Foundation

/// `datebook doctor`'s checks of `serve`: the token resolves and is strong enough, its file is not
/// readable by others, the feed token is strong enough (a warning: `serve` still starts), and a
/// listener off loopback is not plain HTTP. Nothing when the config has
/// no `serve` settings.
enum DoctorServe {
    static func check(_ context: Context) -> [Finding] {
        let serve = context.config.serve
        guard serve.listen != nil || serve.token != nil || serve.baseURL != nil || serve.feedToken != nil else { return [] }
        var findings: [Finding] = []
        let text = serve.listen ?? ListenAddress.standard.description
        guard let listen = ListenAddress(text) else {
            return [.fail("serve", "serve.listen: expected HOST:PORT with a numeric address like 127.0.0.1:8650, got '\(text)'")]
        }
        if let source = serve.token {
            do {
                let token = try source.resolve(environment: context.environment)
                if let weakness = TokenStrength.weakness(token.value, key: "serve.token") {
                    findings.append(.fail("serve", weakness + "; serve refuses to start with it"))
                } else {
                    findings.append(.ok("serve", "serve.token \(source) is about \(Int(TokenStrength.bits(token.value))) bits"))
                }
            } catch {
                findings.append(.fail("serve", "serve.token: \(error)", unavailable: true))
            }
            if case .file(let path) = source, let mode = ConfigLoader.openMode(path) {
                findings.append(.warn("serve", "serve.token's file \(path) is readable by others (mode \(mode)); run: chmod 600 \(path)"))
            }
        } else if !listen.isLoopback {
            findings.append(.fail("serve", "serve.listen \(listen) is not loopback and serve.token is not set: serve refuses to start; "
                                  + "set serve.token (\(TokenStrength.hint))"))
        }
        if let source = serve.feedToken, let feedToken = try? source.resolve(environment: context.environment),
           let weakness = TokenStrength.weakness(feedToken.value, key: "serve.feedToken") {
            findings.append(.warn("serve", weakness + " (anyone who guesses it reads the whole planner)"))
        }
        if !listen.isLoopback, serve.baseURL?.lowercased().hasPrefix("https:") != true {
            findings.append(.warn("serve", "serve listens on \(listen) over plain HTTP: the token, the session cookie and the planner cross "
                                  + "the network in clear; listen on 127.0.0.1 behind a TLS proxy and set serve.baseURL to its https:// address"))
        }
        return findings
    }
}
