import DatebookDelivery
import DatebookRender
import Foundation

/// Delivery benchmark driver (run by bench/delivery.py on a release build).
///
///     datebook-bench http URL COUNT   — COUNT generic-webhook deliveries through Deliverer (curl_multi)
///     datebook-bench smtp URL COUNT   — COUNT emails through one SMTPClient, one after another
///     datebook-bench mail URL COUNT   — COUNT email steps through Deliverer (worker threads, shared sessions)
///
/// Prints one JSON line: {"count", "seconds", "cpu": user+system seconds, "ok": accepted deliveries}.
func cpuSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let count = Int(arguments[3]) else {
    FileHandle.standardError.write(Data("usage: datebook-bench http|smtp|mail URL COUNT\n".utf8))
    exit(64)
}
let mode = arguments[1], url = arguments[2]
_ = DeliveryRuntime.start()
func message(_ n: Int) -> OutgoingMessage {
    OutgoingMessage(kind: .alert, idempotencyKey: "bench:\(n)", title: "Standup #\(n) in 10 minutes",
                    text: "Standup #\(n)\nTue 2026-12-01 09:00 (Europe/Berlin)", markdown: "**Standup #\(n)**",
                    html: "<p><strong>Standup #\(n)</strong></p>")
}
var ok = 0
let startCPU = cpuSeconds()
let start = Date()
switch mode {
case "http":
    let steps = (0..<count).map { n in
        DeliveryStep.http(WebhookPayload.requests(for: message(n), options: .init(url: Secret(url))))
    }
    let deliverer = Deliverer(http: HTTPClient(maxHostConnections: 32, maxTotalConnections: 32))
    deliverer.deliver(steps) { _, outcome in
        if case .http(let response) = outcome, (200..<300).contains(response.status) { ok += 1 }
    }
case "smtp":
    let client = SMTPClient(configuration: SMTPConfiguration(url: url, requireTLS: false))
    for n in 0..<count {
        let email = EmailMessage(message(n), from: EmailAddress(parsing: "bench <bench@example.org>"),
                                 to: [EmailAddress(parsing: "me@example.org")], date: Date(), host: "bench")
        if case .success = client.send(email) { ok += 1 }
    }
case "mail":
    let configuration = SMTPConfiguration(url: url, requireTLS: false)
    let steps = (0..<count).map { n in
        DeliveryStep.email(configuration, EmailMessage(
            message(n), from: EmailAddress(parsing: "bench <bench@example.org>"),
            to: [EmailAddress(parsing: "me@example.org")], date: Date(), host: "bench"))
    }
    Deliverer().deliver(steps) { _, outcome in
        if case .accepted = outcome { ok += 1 }
    }
default:
    FileHandle.standardError.write(Data("unknown mode \(mode)\n".utf8))
    exit(64)
}
let seconds = Date().timeIntervalSince(start)
print("{\"count\": \(count), \"seconds\": \(seconds), \"cpu\": \(cpuSeconds() - startCPU), \"ok\": \(ok)}")
