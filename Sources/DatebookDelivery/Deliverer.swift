import Foundation

/// Sends prepared steps: HTTP ones together through one `curl_multi` (on the calling thread),
/// email, commands and files on worker threads, so one slow destination never holds up another.
///
/// `onOutcome` is always called on the calling thread, once per step, as soon as its result is
/// known (HTTP) or when the workers finish (others), so callers may write the ledger from it.
public final class Deliverer: @unchecked Sendable {
    private let http: HTTPClient
    /// SMTP sessions kept between email steps (and `deliver` calls) to the same server.
    private let smtp = SMTPConnections()

    public init(http: HTTPClient = HTTPClient()) {
        self.http = http
    }

    public func deliver(_ steps: [DeliveryStep], onOutcome: (Int, DeliveryOutcome) -> Void) {
        let results = WorkerResults()
        let group = DispatchGroup()
        for (index, step) in steps.enumerated() {
            if case .http = step { continue }
            group.enter()
            let smtp = smtp
            DispatchQueue.global().async {
                results.append(index, Self.run(step, smtp: smtp))
                group.leave()
            }
        }
        deliverHTTP(steps, onOutcome: onOutcome)
        group.wait()
        for (index, outcome) in results.drain() { onOutcome(index, outcome) }
    }

    /// Rounds: the k-th request of every HTTP step goes out together; a step stops at its first failure.
    private func deliverHTTP(_ steps: [DeliveryStep], onOutcome: (Int, DeliveryOutcome) -> Void) {
        var pending: [(index: Int, requests: [HTTPRequest])] = steps.enumerated().compactMap { index, step in
            if case .http(let requests) = step { return (index, requests) }
            return nil
        }
        var round = 0
        while !pending.isEmpty {
            let batch = pending.filter { round < $0.requests.count }
            var next: [(index: Int, requests: [HTTPRequest])] = []
            _ = http.perform(batch.map { $0.requests[round] }) { position, result in
                let item = batch[position]
                switch result {
                case .success(let response) where (200..<300).contains(response.status):
                    if round + 1 < item.requests.count { next.append(item) } else { onOutcome(item.index, .http(response)) }
                case .success(let response): onOutcome(item.index, .http(response))
                case .failure(let error): onOutcome(item.index, .transport(error))
                }
            }
            for item in pending where round >= item.requests.count { onOutcome(item.index, .accepted) }
            pending = next
            round += 1
        }
    }

    static func run(_ step: DeliveryStep, smtp: SMTPConnections = SMTPConnections()) -> DeliveryOutcome {
        switch step {
        case .http:
            return .accepted
        case .email(let configuration, let message):
            switch SMTPClient(configuration: configuration, connections: smtp).send(message) {
            case .success: return .accepted
            case .failure(let error): return .transport(error)
            }
        case .command(let argv, let environment, let timeout):
            do {
                return .command(try CommandRunner(timeout: timeout).run(argv, environment: environment))
            } catch {
                return .transport(TransportError(kind: .setupFailed, destination: argv.first ?? "", detail: "\(error)"))
            }
        case .file(let path, let contents):
            do {
                try FileWriter.writeAtomically(contents, to: path)
                return .accepted
            } catch {
                return .transport(TransportError(kind: .setupFailed, destination: path, detail: "\(error)"))
            }
        }
    }
}

/// Results from worker threads, handed back to the calling thread.
private final class WorkerResults: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Int, DeliveryOutcome)] = []

    func append(_ index: Int, _ outcome: DeliveryOutcome) {
        lock.lock()
        items.append((index, outcome))
        lock.unlock()
    }

    func drain() -> [(Int, DeliveryOutcome)] {
        lock.lock()
        defer { lock.unlock() }
        return items.sorted { $0.0 < $1.0 }
    }
}

/// Atomic file writes for the `file` channel: temporary file, fsync, rename.
enum FileWriter {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func writeAtomically(_ text: String, to path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory.isEmpty ? "." : directory, isDirectory: &isDirectory),
              isDirectory.boolValue else {
            throw Failure(description: "directory \(directory) does not exist; create it (mkdir -p \(directory))")
        }
        let temporary = (directory.isEmpty ? "." : directory) + "/.datebook-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).tmp"
        let fd = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "cannot create \(temporary): \(String(cString: strerror(errno)))") }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress?.advanced(by: offset), raw.count - offset)
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { return false }
                offset += n
            }
            return true
        }
        let synced = fsync(fd) == 0
        close(fd)
        guard written, synced, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw Failure(description: "cannot write \(path): \(reason)")
        }
    }
}
