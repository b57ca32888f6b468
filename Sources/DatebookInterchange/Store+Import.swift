import DatebookCore
import DatebookICal
import DatebookStore
import Foundation

extension PlannerStore {
    /// `datebook import FILE.ics`: reads the file as an import into this store (ids namespaced
    /// by `PlannerICS.importCalendar`; a re-import keeps the stored tasks, and the symbol and colour
    /// the file does not give), with the memory work of `PlannerICS.decode(_:options:)`. Save the
    /// result with `saveImport`.
    ///
    /// - Throws: `InputError` when the file is not iCalendar at all.
    public func decodeImport(_ file: consuming ImportFile, timeZone: TimeZone, today: CalendarDate) throws -> ICSImport {
        // An empty store (the common first import) needs no per-event lookups.
        let empty = try eventCount() == 0
        let options = PlannerICS.Options(calendar: PlannerICS.importCalendar, timeZone: timeZone, today: today,
                                         existing: { [self] in empty ? nil : try? event(id: $0) }, store: self)
        do {
            return try PlannerICS.decode(file, options: options)
        } catch let error as ICalError {
            guard case let .notICalendar(fileName, got) = error else { throw error }
            throw InputError(file: fileName, line: nil, path: "",
                             message: "not iCalendar (\(got)); check that the path or URL points at an .ics calendar")
        }
    }
}
