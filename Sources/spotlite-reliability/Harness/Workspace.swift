import Foundation
import Spotlite
import SpotliteTooling

/// A scratch directory for one suite run: its configuration, store, index and the output of every child process.
/// Removed at the end unless `--keep` was given.
final class Workspace {
    /// What a finished `spotlite` (or `sqlite3`) run printed.
    struct Run {
        var termination: ChildProcess.Termination
        var stdout: String
        var stderr: String

        /// Whether the command did its work: `spotlite search` exits 1 when it finds nothing (like grep), with its
        /// results on stdout and nothing on stderr, and that is an answer too.
        var succeeded: Bool {
            termination.succeeded || (termination.exitStatus == 1 && stderr.isEmpty && !stdout.isEmpty)
        }

        /// stdout parsed as one JSON object.
        var jsonObject: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }

        /// The first line of stderr, for failure messages.
        var errorLine: String {
            stderr.split(separator: "\n").first.map(String.init) ?? "(no message, \(termination))"
        }
    }

    let root: String
    let spotlite: String
    let keep: Bool
    private var counter = 0

    var configurationPath: String { root + "/spotlite.toml" }
    var storePath: String { root + "/store.sqlite" }
    var indexPath: String { root + "/search" }
    private var logDirectory: String { root + "/logs" }

    init(suite: String, seed: UInt64, spotlite: String, keep: Bool) throws {
        root = FileManager.default.temporaryDirectory.path
            + "/spotlite-reliability-\(suite)-\(seed)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        self.spotlite = spotlite
        self.keep = keep
        try FileManager.default.createDirectory(atPath: root + "/logs", withIntermediateDirectories: true)
        HarnessInterruption.enter(workspace: root, keep: keep)
    }

    func remove() {
        HarnessInterruption.leave()
        if keep {
            FileHandle.standardError.write(Data("kept the workspace \(root)\n".utf8))
        } else {
            try? FileManager.default.removeItem(atPath: root)
        }
    }

    func path(_ relative: String) -> String { root + "/" + relative }

    func write(_ text: String, to relative: String) throws {
        try write(Data(text.utf8), to: relative)
    }

    func write(_ data: Data, to relative: String) throws {
        let url = URL(fileURLWithPath: path(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    /// The configuration the suites share, loaded as the command loads it.
    func loadConfiguration() throws -> SpotliteConfiguration {
        try SpotliteConfiguration(contentsOf: configurationPath, baseDirectory: root)
    }

    /// Output file paths for the next child.
    func outputPaths(_ label: String) -> (stdout: String, stderr: String) {
        counter += 1
        let name = String(label.unicodeScalars.prefix(40).map { scalar -> Character in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar) || scalar == "-"
                ? Character(scalar) : "_"
        })
        let base = logDirectory + "/" + String(format: "%05d-", counter) + name
        return (base + ".out", base + ".err")
    }

    /// Starts `spotlite arguments…` with `--config <workspace configuration>`, in the workspace.
    func startSpotlite(_ arguments: [String], label: String? = nil, configuration: String? = nil,
                       stdinPath: String? = nil) throws -> ChildProcess {
        let output = outputPaths(label ?? arguments.prefix(2).joined(separator: "-"))
        // Options go before a `--`, after which every argument is a query word.
        var arguments = arguments
        arguments.insert(contentsOf: ["--config", configuration ?? configurationPath],
                         at: arguments.firstIndex(of: "--") ?? arguments.endIndex)
        return try ChildProcess(executable: spotlite, arguments: arguments,
                                directory: root, stdinPath: stdinPath, stdoutPath: output.stdout, stderrPath: output.stderr)
    }

    /// Runs `spotlite arguments…` to completion (a hang past `timeout` seconds is killed and reported).
    func runSpotlite(_ arguments: [String], configuration: String? = nil, stdinPath: String? = nil,
                     timeout: Double = 600) throws -> Run {
        let child = try startSpotlite(arguments, configuration: configuration, stdinPath: stdinPath)
        return finish(child, timeout: timeout)
    }

    /// Runs any program to completion in the workspace.
    func run(_ executable: String, _ arguments: [String], label: String, stdinPath: String? = nil,
             directory: String? = nil, timeout: Double = 600) throws -> Run {
        let output = outputPaths(label)
        let child = try ChildProcess(executable: executable, arguments: arguments, directory: directory ?? root,
                                     stdinPath: stdinPath, stdoutPath: output.stdout, stderrPath: output.stderr)
        return finish(child, timeout: timeout)
    }

    /// Runs a SQL script with the `sqlite3` shell against the store (stopping at the first error, waiting up to 30 s
    /// for the write lock).
    func sqlite(_ script: String, database: String? = nil, timeout: Double = 600) throws -> Run {
        counter += 1
        let scriptPath = logDirectory + "/script-\(counter).sql"
        // Like any writer beside others, the shell waits for the write lock instead of failing at once.
        try Data((".timeout 30000\n" + script).utf8).write(to: URL(fileURLWithPath: scriptPath))
        defer { try? FileManager.default.removeItem(atPath: scriptPath) }
        return try run(try Binaries.sqlite3(), ["-bail", database ?? storePath], label: "sqlite3", stdinPath: scriptPath,
                       timeout: timeout)
    }

    /// Waits for a child and collects its output; the output files are removed (long runs start thousands).
    func finish(_ child: ChildProcess, timeout: Double = 600) -> Run {
        let termination = child.wait(timeout: timeout)
        let run = Run(termination: termination, stdout: child.stdout, stderr: child.stderr)
        discardOutput(of: child)
        return run
    }

    /// Removes the output files of a child that ended (killed ones included), once what it printed has been read.
    func discardOutput(of child: ChildProcess) {
        for path in [child.stdoutPath, child.stderrPath] where path.hasPrefix(logDirectory + "/") {
            try? FileManager.default.removeItem(atPath: path)
        }
    }
}
