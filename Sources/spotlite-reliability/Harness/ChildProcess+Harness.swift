import Foundation
import SpotliteTooling

extension ChildProcess {
    /// Starts a child of a suite: standard input from `stdinPath` (default /dev/null), output and errors in the given
    /// files (what the suites read back), `TERM=dumb` (no colours in what they read), in `directory`.
    convenience init(executable: String, arguments: [String], directory: String? = nil, stdinPath: String? = nil,
                     stdoutPath: String, stderrPath: String, environment: [String: String] = [:]) throws {
        try self.init(executable: executable, arguments: arguments, directory: directory,
                      environment: ["TERM": "dumb"].merging(environment) { $1 }, inputPath: stdinPath,
                      output: .file(stdoutPath), error: .file(stderrPath))
    }

    var stdoutPath: String { standardOutputPath ?? "/dev/null" }
    var stderrPath: String { standardErrorPath ?? "/dev/null" }
    /// What the child printed on its standard output so far.
    var stdout: String { standardOutputText }
    /// What it printed on its standard error so far.
    var stderr: String { standardErrorText }
}

extension Duration {
    /// The duration in seconds, as a floating-point number.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
