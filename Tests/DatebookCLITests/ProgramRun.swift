import Synchronization
import Foundation

/// The result of running a program (a shell, groff, make) to completion.
struct ProgramRun {
    var status: Int32
    var out: String
    var err: String
}

/// Runs `path` with `arguments`, `stdin` as its input, and waits; output is read to EOF first.
func runProgram(_ path: String, _ arguments: [String], environment: [String: String]? = nil, stdin: String = "") throws -> ProgramRun {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let input = Pipe(), output = Pipe(), error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    input.fileHandleForWriting.write(Data(stdin.utf8))
    try input.fileHandleForWriting.close()
    let errorData = Mutex<Data>(Data())
    let errorReader = Thread { errorData.withLock { $0 = error.fileHandleForReading.readDataToEndOfFile() } }
    errorReader.start()
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    while errorReader.isExecuting || !errorReader.isFinished { usleep(1_000) }
    return ProgramRun(status: process.terminationStatus, out: String(decoding: outData, as: UTF8.self),
                      err: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
}
