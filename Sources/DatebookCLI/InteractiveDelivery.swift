import DatebookCore
import DatebookDelivery
import DatebookRender
import Foundation

/// Delivers messages now, for `send` and `channels test`: retries transient failures while the
/// wait allows (honouring Retry-After), and reports one line per channel. Nothing is recorded
/// in the ledger: these are explicit, user-driven sends.
struct InteractiveDelivery {
    struct Item {
        var channel: Channel
        var message: OutgoingMessage
    }

    enum Result: Equatable {
        case sent(attempts: Int)
        case unavailable(String)
        case failed(String)
        case gaveUp(String)
    }

    let context: Context
    /// Longest time to keep retrying a transient failure.
    var wait: TimeInterval = 30

    var dispatcher: Dispatcher {
        Dispatcher(environment: context.environment, now: context.now, timeZone: context.timeZone,
                   host: ProcessInfo.processInfo.hostName)
    }

    /// Prints every prepared step (secrets redacted) and sends nothing.
    func dryRun(_ items: [Item]) -> Int32 {
        var code = ExitCode.ok
        for item in items {
            context.out.write("── \(item.channel.label) ──\n")
            do {
                context.out.write(try dispatcher.prepare(item.message, for: item.channel).dryRun + "\n")
            } catch {
                context.out.write("unavailable: \(Self.withoutLabel(of: item.channel, "\(error)"))\n")
                code = ExitCode.unavailable
            }
        }
        return code
    }

    func deliver(_ items: [Item]) -> [Result] {
        var results = [Result?](repeating: nil, count: items.count)
        var steps: [(index: Int, step: DeliveryStep)] = []
        for (index, item) in items.enumerated() {
            if item.channel.insecure {
                context.err.write("datebook: warning: \(item.channel.label) skips TLS verification (insecure: true)\n")
            }
            do {
                steps.append((index, try dispatcher.prepare(item.message, for: item.channel)))
            } catch {
                results[index] = .unavailable("\(error)")
            }
        }
        let policy = RetryPolicy(baseDelay: 2, maxDelay: 15, maxAttempts: 5, deadline: wait)
        let deliverer = Deliverer()
        let firstAttempt = Date()
        var attempt = 1
        while !steps.isEmpty {
            var retries: [(index: Int, step: DeliveryStep, at: Date)] = []
            var progress: [Int: DeliveryProgress] = [:]
            let batch = steps
            deliverer.deliver(batch.map(\.step)) { position, outcome in
                let index = batch[position].index
                if case .progressed(let done) = outcome { return progress[position] = done }
                switch policy.decide(attempt: attempt, outcome: outcome, firstAttempt: firstAttempt, now: Date(),
                                     random: { Double.random(in: 0..<1) }) {
                case .delivered: results[index] = .sent(attempts: attempt)
                case .uncertain(let reason): results[index] = .failed("uncertain: \(reason); not sent again, check that it arrived")
                case .failed(let reason):
                    results[index] = RetryPolicy.isTransient(outcome) ? .gaveUp(Self.describe(outcome)) : .failed(reason)
                case .retry(let at):
                    // A retry sends only what was not accepted (later parts, refused recipients).
                    retries.append((index, batch[position].step.remaining(after: progress[position] ?? DeliveryProgress()), at))
                    results[index] = .gaveUp(Self.describe(outcome))
                }
            }
            guard let next = retries.map(\.at).min() else { break }
            let delay = next.timeIntervalSinceNow
            if delay > 0 { Thread.sleep(forTimeInterval: delay) }
            steps = retries.map { ($0.index, $0.step) }
            attempt += 1
        }
        return results.map { $0 ?? .failed("not attempted") }
    }

    static func describe(_ outcome: DeliveryOutcome) -> String {
        switch outcome {
        case .http(let response): "HTTP \(response.status)"
        case .transport(let error): error.description
        case .command(let result): result.timedOut ? "command timed out" : "command exited with \(result.termination)"
        case .accepted: "accepted"
        case .progressed(let progress): progress.summary
        }
    }

    /// Writes one line per channel and returns the exit code: 0 all sent, 69 a channel failed, 75 retry later.
    func report(_ items: [Item], _ results: [Result]) -> Int32 {
        var code = ExitCode.ok
        for (item, result) in zip(items, results) {
            switch result {
            case .sent(let attempts):
                context.out.write("sent to \(item.channel.label)" + (attempts > 1 ? " (after \(attempts) attempts)" : "") + "\n")
            case .unavailable(let reason), .failed(let reason):
                context.err.write("datebook: \(item.channel.label): \(Self.withoutLabel(of: item.channel, reason))\n")
                code = ExitCode.unavailable
            case .gaveUp(let reason):
                context.err.write("datebook: \(item.channel.label): \(reason); still failing after \(Int(wait)) s, try again later\n")
                if code == ExitCode.ok { code = ExitCode.temporaryFailure }
            }
        }
        return code
    }

    /// A reason without its leading `email 'mail': `, for lines that name the channel already.
    static func withoutLabel(of channel: Channel, _ reason: String) -> String {
        let prefix = channel.label + ": "
        return reason.hasPrefix(prefix) ? String(reason.dropFirst(prefix.count)) : reason
    }

    /// Resolves `--channel` names against the config, with suggestions; a name given twice counts once.
    static func channels(_ names: [String], _ context: Context) throws -> [Channel] {
        let known = context.config.channels.map(\.name)
        guard !names.isEmpty else {
            throw CLIError.usage("name at least one --channel" + (known.isEmpty ? "; no channels are configured in \(context.configPath)" : " (configured: \(known.joined(separator: ", ")))"))
        }
        var seen = Set<String>()
        return try names.filter { seen.insert($0).inserted }.map { name in
            guard let channel = context.config.channel(named: name) else {
                let hint = Suggestion.hint(for: name, in: known)
                throw CLIError.usage("no channel named '\(name)'\(hint)" + (known.isEmpty ? "; define channels in \(context.configPath)" : "; configured: \(known.joined(separator: ", "))"))
            }
            return channel
        }
    }
}
