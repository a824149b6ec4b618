import Foundation
import SpotliteTooling

/// A plain SQL writer: the `sqlite3` shell, which knows nothing of Spotlite, running its ``WriteScript`` in chunks of
/// transactions. A chunk that stops on "database is locked" is run again from the first transaction that did not
/// print its `ok` line (counted as a retry); any other error is a failure and that transaction is skipped.
///
/// Driven by ``poll(in:)`` from the suite's loop, so several writers run side by side without threads.
final class ShellWriter {
    let name: String
    let script: WriteScript
    let transactions: Int
    let chunkSize: Int
    private(set) var committed = 0
    private(set) var busyRetries = 0
    private(set) var failures: [String] = []
    private var next = 0
    private var child: ChildProcess?
    private var chunkStart = 0
    private var scriptPath = ""

    init(name: String, script: WriteScript, transactions: Int, chunkSize: Int = 100) {
        self.name = name
        self.script = script
        self.transactions = transactions
        self.chunkSize = chunkSize
    }

    var isFinished: Bool { next >= transactions && child == nil }

    /// Collects a finished chunk and starts the next one.
    func poll(in workspace: Workspace) throws {
        if let running = child {
            guard let ended = running.poll() else { return }
            let okLines = running.stdout.split(separator: "\n").compactMap { line -> Int? in
                line.hasPrefix("ok ") ? Int(line.dropFirst(3)) : nil
            }
            committed += okLines.count
            let resume = (okLines.max() ?? (chunkStart - 1)) + 1
            if ended.succeeded {
                next = min(chunkStart + chunkSize, transactions)
            } else {
                let message = running.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
                if message.contains("locked") || message.contains("busy") {
                    busyRetries += 1
                    next = resume
                } else {
                    failures.append("\(name) transaction \(resume): \(message.isEmpty ? "\(ended)" : message)")
                    next = resume + 1
                }
            }
            try? FileManager.default.removeItem(atPath: running.stdoutPath)
            try? FileManager.default.removeItem(atPath: running.stderrPath)
            try? FileManager.default.removeItem(atPath: scriptPath)
            child = nil
        }
        guard next < transactions else { return }
        chunkStart = next
        let end = min(next + chunkSize, transactions)
        scriptPath = workspace.path("logs/\(name)-\(chunkStart).sql")
        try workspace.write(script.shellScript(chunkStart..<end), to: "logs/\(name)-\(chunkStart).sql")
        let output = workspace.outputPaths(name)
        child = try ChildProcess(executable: try Binaries.sqlite3(), arguments: [workspace.storePath],
                                 stdinPath: scriptPath, stdoutPath: output.stdout, stderrPath: output.stderr)
    }
}
