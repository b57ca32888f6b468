import Foundation

/// libFuzzer's entry point: one input through the target named by `DATEBOOK_FUZZ_TARGET`.
///
/// Built only when `DATEBOOK_FUZZ=1` (see Package.swift and `make fuzz`). A trap, an ASan report
/// or a timeout is a finding; thrown errors and warnings are the expected outcome for bad input.
/// Every target makes its result observable (`FuzzSink`) so the optimizer cannot drop the work.
/// `main.swift` hands the command line to libFuzzer's driver.
@_cdecl("LLVMFuzzerTestOneInput")
public func datebookFuzzOneInput(_ data: UnsafeRawPointer, _ size: Int) -> CInt {
    let bytes = Array(UnsafeRawBufferPointer(start: data, count: size))
    FuzzTarget.selected.run(bytes)
    return 0
}

enum FuzzTarget: String, CaseIterable {
    case ical, icalLibical = "ical-libical", rrule, plannerJSON = "planner-json", config, when, mustache, feed, actionLink = "action-link", davXML = "dav-xml"

    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["DATEBOOK_FUZZ_TARGET"] ?? ""
        guard let target = FuzzTarget(rawValue: name) else {
            let names = allCases.map(\.rawValue).joined(separator: ", ")
            FileHandle.standardError.write(Data("DATEBOOK_FUZZ_TARGET must be one of: \(names)\n".utf8))
            exit(64)
        }
        return target
    }()

    func run(_ bytes: [UInt8]) {
        switch self {
        case .ical: ICalFuzz.parse(bytes, fastPaths: true)
        case .icalLibical: ICalFuzz.parse(bytes, fastPaths: false)
        case .rrule: ICalFuzz.expand(bytes)
        case .plannerJSON: CoreFuzz.plannerJSON(bytes)
        case .config: CoreFuzz.config(bytes)
        case .when: CoreFuzz.when(bytes)
        case .mustache: MustacheFuzz.render(bytes)
        case .feed: FeedFuzz.refresh(bytes)
        case .actionLink: CoreFuzz.actionLink(bytes)
        case .davXML: SyncFuzz.multistatus(bytes)
        }
    }
}

/// Keeps results alive: a count the optimizer must compute.
enum FuzzSink {
    nonisolated(unsafe) static var count = 0
    static func keep(_ n: Int) { count &+= n }
}
