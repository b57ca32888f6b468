import DatebookCore
import DatebookDelivery
import DatebookRender
import DatebookStore

/// Exit codes (DESIGN.md): 0 ok, 64 usage, 65 bad input data, 66 an input file missing, 69 a channel unavailable,
/// 70 internal error, 75 temporary failure.
public enum ExitCode {
    public static let ok: Int32 = 0
    public static let usage: Int32 = 64
    public static let dataError: Int32 = 65
    /// An input file that does not exist (`import FILE`).
    public static let noInput: Int32 = 66
    public static let unavailable: Int32 = 69
    public static let software: Int32 = 70
    public static let temporaryFailure: Int32 = 75
}

/// A failure the CLI reports as one line on stderr with a chosen exit code.
struct CLIError: Error, CustomStringConvertible {
    var message: String
    var code: Int32

    var description: String { message }

    static func data(_ message: String) -> CLIError { CLIError(message: message, code: ExitCode.dataError) }
    static func usage(_ message: String) -> CLIError { CLIError(message: message, code: ExitCode.usage) }
}

enum ErrorTranslator {
    /// The one place that turns any error into a message and an exit code.
    static func translate(_ error: Error) -> (message: String, code: Int32, showHelpHint: String?) {
        switch error {
        case let error as UsageError: (error.message, ExitCode.usage, error.command)
        case let error as CLIError: (error.message, error.code, nil)
        case let error as WhenError: (error.description, ExitCode.usage, nil)
        case let error as InputError: (error.description, ExitCode.dataError, nil)
        case let error as DigestError: (error.description, error.isUsage ? ExitCode.usage : ExitCode.dataError, nil)
        case let error as MustacheError: (error.description, ExitCode.dataError, nil)
        case let error as CatalogError: (error.description, ExitCode.dataError, nil)
        case let error as AtomicFile.Failure: (error.description, ExitCode.dataError, nil)
        case let error as StoreError: (error.description, exitCode(of: error), nil)
        case let error as StoreCopyError: (error.description, error.storeError.map(exitCode(of:)) ?? ExitCode.dataError, nil)
        default: ("internal error: \(error)", ExitCode.software, nil)
        }
    }

    /// Retry later when the store is locked or its server cannot be reached or was lost; 69 when a
    /// PostgreSQL server refuses the login or the role may not create the missing schema; else bad data.
    static func exitCode(of error: StoreError) -> Int32 {
        if error.isTemporary { return ExitCode.temporaryFailure }
        switch error {
        case .authentication, .noSchemaRights: return ExitCode.unavailable
        default: return ExitCode.dataError
        }
    }
}
