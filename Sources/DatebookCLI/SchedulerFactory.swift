import DatebookDelivery
import DatebookScheduler
import DatebookStore
import Foundation

/// Builds the scheduler the commands use (`tick`, `run`, `status` and `preview`), with digests
/// rendered from the templates like `datebook digest`.
enum SchedulerFactory {
    static func digestRenderer(_ context: Context, config: Config) -> any DigestRendering {
        TemplateDigestRenderer(overrideDirectory: TemplatesCommand.overrideDirectory(context), locale: config.locale)
    }

    static func make(_ context: Context, store: any PlannerStore, config: Config? = nil, log: @escaping (String) -> Void = { _ in }) -> Scheduler {
        var options = Scheduler.Options()
        if let lease = context.environment["DATEBOOK_LEASE"].flatMap(TimeInterval.init), lease > 0 { options.lease = lease }
        // Outcomes held before a write (`GroupCommit`); 0 writes at every turn (tests and benchmarks).
        if let hold = context.environment["DATEBOOK_OUTCOME_HOLD"].flatMap(Int.init), hold >= 0 { options.outcomeHold = hold }
        options.actionLinkBaseURL = (config ?? context.config).serve.baseURL
        do {
            options.words = try context.words(config ?? context.config)
        } catch {
            log("alerts in English: \(ErrorTranslator.translate(error).message)")
        }
        return Scheduler(store: store, config: config ?? context.config, calendar: context.calendar,
                         environment: context.environment, digestRenderer: digestRenderer(context, config: config ?? context.config),
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
