import Foundation

/// Runs the real `sqlite3` command line shell: a writer that knows nothing about Spotlite.
enum SQLiteShell {
    static let executable = "/usr/bin/sqlite3"

    struct Failure: Error, CustomStringConvertible {
        var status: Int32
        var standardError: String
        var description: String { "sqlite3 exited with status \(status): \(standardError)" }
    }

    /// Runs `script` against `database` and returns what the shell printed.
    @discardableResult
    static func run(_ database: String, _ script: String) throws -> String {
        let shell = try start(database, script)
        return try shell.finish()
    }

    /// Starts the shell on `script` without waiting for it.
    static func start(_ database: String, _ script: String) throws -> RunningShell {
        let scriptFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-shell-\(UUID().uuidString).sql")
        // A writer that respects other writers' locks, as any well-behaved program would.
        try (".timeout 30000\n" + script).write(to: scriptFile, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["-bail", database]
        process.standardInput = try FileHandle(forReadingFrom: scriptFile)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        return RunningShell(process: process, output: output, errors: errors, scriptFile: scriptFile)
    }

    final class RunningShell {
        let process: Process
        let output: Pipe
        let errors: Pipe
        let scriptFile: URL

        init(process: Process, output: Pipe, errors: Pipe, scriptFile: URL) {
            self.process = process
            self.output = output
            self.errors = errors
            self.scriptFile = scriptFile
        }

        /// Waits for the shell to exit; throws when it failed.
        func finish() throws -> String {
            let printed = output.fileHandleForReading.readDataToEndOfFile()
            let complaints = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            try? FileManager.default.removeItem(at: scriptFile)
            guard process.terminationStatus == 0 else {
                throw Failure(status: process.terminationStatus, standardError: String(decoding: complaints, as: UTF8.self))
            }
            return String(decoding: printed, as: UTF8.self)
        }
    }
}
