import Foundation

/// When `deliver` writes to the ledger, and which claims it fences then: the one door of the
/// fan-out's group commit (docs/scheduler.md, "In flight and held").
///
/// Plain path: one transaction per `starting` call, with the outcomes of the turn and the fence
/// of the transfers that start in it (about three per turn with six connections to one host).
/// Here outcomes are held until `holdCount` of them or `holdTime` has passed, and a fence takes
/// the claims up to `fenceAhead` past those asked for, so most turns start their transfers on a
/// fence already committed and write nothing. 10,000 webhook alerts to nginx: about 3,300 → 630
/// transactions, 208 → 159 µs CPU an alert in one alternated run at load 15–26
/// (bench/results-peers.md). `holdCount` 0 is the plain path (`GroupCommitTests` compares them).
///
/// What it keeps: a transfer starts only on a committed fence younger than `fenceLife` (a process
/// held up longer fences again, and finds a claim another process took over gone); a split
/// message's next part and anything the deliverer waits for never wait behind held progress
/// (progress is written at the next call). What it costs: a crash may now send again what was in
/// flight plus the outcomes held, at most `holdCount`; and held outcomes are written at most
/// `holdTime` after the first of them plus one turn of the deliverer (it calls at least every
/// 200 ms), far inside any lease.
struct GroupCommit: Equatable {
    /// Held outcomes that make the next call write.
    var holdCount: Int
    /// How long the first held outcome may wait for the next call to write it.
    var holdTime: TimeInterval
    /// Claims fenced beyond those asked for (the next ones by index, as the deliverer asks).
    var fenceAhead: Int
    /// How long a committed fence lets its transfer start.
    var fenceLife: TimeInterval
    /// The claims' count (indices `0..<claims`).
    let claims: Int

    private var fencedAt: [Int: Date] = [:]
    private var refused: Set<Int> = []
    /// Where the next fence ahead looks first: past every claim fenced so far.
    private var ahead = 0
    /// The highest claim asked about so far (the deliverer asks about them in rising order).
    private var lastAsked = -1
    private var held = 0
    private var heldSince: Date?

    init(claims: Int, holdCount: Int, holdTime: TimeInterval, fenceAhead: Int, fenceLife: TimeInterval) {
        self.claims = claims
        self.holdCount = max(0, holdCount)
        self.holdTime = holdTime
        self.fenceAhead = max(0, fenceAhead)
        self.fenceLife = fenceLife
    }

    /// `count` more outcomes (or progress records) accepted at `now`, not written yet.
    mutating func hold(_ count: Int, at now: Date) {
        guard count > 0 else { return }
        held += count
        heldSince = heldSince ?? now
    }

    /// What a `starting(indices)` call at `now` writes: nil for nothing (its claims start on the
    /// fences they have), or the claims to fence in a transaction with every held outcome (perhaps
    /// none). A write also fences ahead, up to `fenceAhead` claims past the last one asked for, so
    /// the writes the held outcomes make keep the next transfers fenced. `mustWrite`: something
    /// that may not wait is held (a split message's progress).
    mutating func write(starting indices: [Int], at now: Date, mustWrite: Bool = false) -> [Int]? {
        lastAsked = max(lastAsked, indices.max() ?? -1)
        let unfenced = indices.filter { !refused.contains($0) && !isFresh($0, at: now) }
        let due = held > 0 && (held >= holdCount || heldSince.map { now.timeIntervalSince($0) >= holdTime } ?? false)
        guard !unfenced.isEmpty || due || (mustWrite && held > 0) else { return nil }
        guard fenceAhead > 0 else { return unfenced }
        var fence = unfenced
        let asked = Set(unfenced)
        var next = ahead
        while next < min(claims, lastAsked + 1 + fenceAhead) {
            if fencedAt[next] == nil, !refused.contains(next), !asked.contains(next) { fence.append(next) }
            next += 1
        }
        return fence
    }

    /// The transaction of `write` committed at `now`: `fenced` were fenced, of which `started` hold.
    mutating func written(fenced: [Int], started: Set<Int>, at now: Date) {
        for index in fenced {
            if started.contains(index) {
                fencedAt[index] = now
            } else {
                fencedAt[index] = nil
                refused.insert(index)
            }
            ahead = max(ahead, index + 1)
        }
        held = 0
        heldSince = nil
    }

    /// Those of `indices` that may start at `now`: fenced, and not long ago.
    func allowed(_ indices: [Int], at now: Date) -> Set<Int> {
        Set(indices.filter { !refused.contains($0) && isFresh($0, at: now) })
    }

    private func isFresh(_ index: Int, at now: Date) -> Bool {
        fencedAt[index].map { now.timeIntervalSince($0) < fenceLife } ?? false
    }
}
