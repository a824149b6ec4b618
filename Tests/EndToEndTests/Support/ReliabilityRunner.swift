import Foundation
import SpotliteTooling

/// Runs the built `spotlite-reliability` executable, as `make stress` does: found beside the test bundle
/// (`swift build --build-tests` builds it with the tests), or at `SPOTLITE_RELIABILITY_BINARY`.
struct ReliabilityRunner {
    /// What one run printed.
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String

        /// `passed` and `failed` from the summary line `<suite>: N passed, N failed`.
        func summary(_ suite: String) -> (passed: Int, failed: Int)? {
            for line in stdout.split(separator: "\n") where line.hasPrefix("\(suite): ") {
                let numbers = line.dropFirst(suite.count + 2).split(separator: ",").compactMap {
                    Int($0.trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
                }
                if numbers.count == 2 { return (numbers[0], numbers[1]) }
            }
            return nil
        }

        /// The value of the figure line `  <name>  <value>`.
        func figure(_ name: String) -> String? {
            for line in stdout.split(separator: "\n") where line.hasPrefix("  \(name) ") {
                return line.dropFirst(name.count + 2).trimmingCharacters(in: .whitespaces)
            }
            return nil
        }

        /// The integers in a figure, in order ("12 runs, 300 deleted" gives [12, 300]).
        func numbers(in figure: String) -> [Int] {
            (self.figure(figure) ?? "").replacingOccurrences(of: ",", with: "")
                .split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
        }
    }

    static let binary: String = {
        if let path = ProcessInfo.processInfo.environment["SPOTLITE_RELIABILITY_BINARY"] { return path }
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = directory.appendingPathComponent("spotlite-reliability").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            directory = directory.deletingLastPathComponent()
        }
        return FileManager.default.currentDirectoryPath + "/.build/debug/spotlite-reliability"
    }()

    /// Runs `spotlite-reliability arguments…` to completion. Output goes through files: a suite can print more than
    /// a pipe holds.
    static func run(_ arguments: [String], in directory: URL? = nil) throws -> Output {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("reliability-run-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let child = try ChildProcess(executable: binary, arguments: arguments, directory: directory?.path,
                                     output: .file(scratch.appendingPathComponent("out").path),
                                     error: .file(scratch.appendingPathComponent("err").path))
        let ended = child.waitForExit()
        return Output(status: ended.status, stdout: child.standardOutputText, stderr: child.standardErrorText)
    }
}
