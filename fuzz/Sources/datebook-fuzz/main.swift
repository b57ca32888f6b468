import Foundation

// SwiftPM names an executable's entry point after its module and points `main` at it, so
// libFuzzer's own `main` is not linked: hand the command line to its driver here.
@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(_ argc: UnsafeMutablePointer<CInt>,
                     _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                     _ body: @convention(c) (UnsafeRawPointer, Int) -> CInt) -> CInt

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(runFuzzerDriver(&argc, &argv) { datebookFuzzOneInput($0, $1) })
