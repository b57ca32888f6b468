/// Requests not yet handed to libcurl, in order, one queue per host.
struct HostQueues {
    private var hostOfIndex: [Int]
    private var queues: [[Int]]
    private var heads: [Int]

    init(_ keys: [String]) {
        var numbers: [String: Int] = [:]
        hostOfIndex = []
        hostOfIndex.reserveCapacity(keys.count)
        queues = []
        for (index, key) in keys.enumerated() {
            let host: Int
            if let known = numbers[key] {
                host = known
            } else {
                host = queues.count
                numbers[key] = host
                queues.append([])
            }
            hostOfIndex.append(host)
            queues[host].append(index)
        }
        heads = Array(repeating: 0, count: queues.count)
    }

    func host(of index: Int) -> Int { hostOfIndex[index] }

    /// The earliest waiting request whose host `canStart`, removed from its queue.
    mutating func next(where canStart: (Int) -> Bool) -> Int? {
        var best: Int?
        for host in queues.indices where heads[host] < queues[host].count && canStart(host) {
            let candidate = queues[host][heads[host]]
            if best.map({ candidate < $0 }) ?? true { best = candidate }
        }
        guard let best else { return nil }
        heads[hostOfIndex[best]] += 1
        return best
    }

    /// Requests never started, in order.
    func remaining() -> [Int] {
        queues.indices.flatMap { queues[$0][heads[$0]...] }.sorted()
    }
}
