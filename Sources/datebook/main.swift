import DatebookCLI
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let code = Datebook.main(
    arguments: arguments,
    environment: ProcessInfo.processInfo.environment,
    stdoutIsTerminal: isatty(STDOUT_FILENO) == 1,
    out: FileDescriptorSink(fd: STDOUT_FILENO),
    err: FileDescriptorSink(fd: STDERR_FILENO)
)
exit(code)
