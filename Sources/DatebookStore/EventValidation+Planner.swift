import DatebookCore
import DatebookICal

extension EventValidation {
    /// The planner's rules, with recurrence rules judged by the expander (as `--repeat` is).
    public static let planner = EventValidation(ruleProblem: { RecurrenceExpander.problem(rule: $0) })
}
