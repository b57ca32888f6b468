import DatebookDelivery
import DatebookScheduler
import DatebookStore
import Foundation

/// Builds the scheduler the commands use. This is where the real digest renderer plugs in:
/// set `digestRenderer` to the DatebookRender implementation of `DigestRendering`
/// (`tick`, `run`, `status` and `preview` all take it from here).
enum SchedulerFactory {
    static let digestRenderer: any DigestRendering = PlainDigestRenderer()

    static func make(_ context: Context, store: Store, config: Config? = nil, log: @escaping (String) -> Void = { _ in }) -> Scheduler {
        var options = Scheduler.Options()
        if let lease = context.environment["DATEBOOK_LEASE"].flatMap(TimeInterval.init), lease > 0 { options.lease = lease }
        return Scheduler(store: store, config: config ?? context.config, calendar: context.calendar,
                         environment: context.environment, digestRenderer: digestRenderer,
                         options: options, log: log)
    }

    /// Log lines for stderr: one per delivery, flushed at once (journald reads them line by line).
    static func logger(_ context: Context) -> (String) -> Void {
        let err = context.err
        return { line in
            err.write("datebook: " + line + "\n")
            err.flush()
        }
    }
}
