import Foundation
import Spotlite
import SpotliteTooling

/// The outcome of one suite: cases passed and failed, the failures' descriptions, and the figures it measured.
///
/// Printed as the summary line `<suite>: N passed, N failed` followed by one indented line per figure, which is what
/// `make stress` shows and what the tests read back.
final class SuiteReport {
    let suite: String
    private(set) var passed = 0
    private(set) var failed = 0
    private(set) var failures: [String] = []
    private(set) var figures: [(name: String, value: String)] = []
    private let verbose: Bool

    init(suite: String, verbose: Bool) {
        self.suite = suite
        self.verbose = verbose
    }

    /// Records one case: passed when `problems` is empty. Failures are printed at once, so a long run shows them early.
    func record(_ name: String, problems: [String]) {
        if problems.isEmpty {
            passed += 1
            if verbose { log("ok   \(name)") }
        } else {
            failed += 1
            let text = "\(name): " + problems.prefix(8).joined(separator: "; ")
                + (problems.count > 8 ? "; … \(problems.count - 8) more" : "")
            failures.append(text)
            log("FAIL \(text)")
        }
    }

    /// Records a case that passes when `condition` holds.
    func expect(_ condition: Bool, _ name: String, otherwise problem: @autoclosure () -> String) {
        record(name, problems: condition ? [] : [problem()])
    }

    func figure(_ name: String, _ value: String) {
        if let index = figures.firstIndex(where: { $0.name == name }) {
            figures[index].value = value
        } else {
            figures.append((name, value))
        }
    }

    func figure(_ name: String, _ value: Int) {
        figure(name, Format.number(value))
    }

    /// The summary line, the failures, and the figures.
    var text: String {
        var lines = ["\(suite): \(passed) passed, \(failed) failed"]
        lines += failures.map { "  FAIL " + $0 }
        let width = figures.map(\.name.count).max() ?? 0
        for (name, value) in figures {
            lines.append("  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value)
        }
        return lines.joined(separator: "\n")
    }

    /// A progress or failure line on stderr, so that stdout holds only summaries.
    func log(_ message: String) {
        guard !HarnessInterruption.isInterrupted else { return }
        FileHandle.standardError.write(Data("[\(suite)] \(message)\n".utf8))
    }
}

/// Number and duration formatting for figures.
enum Format {
    static func number(_ value: Int) -> String {
        GroupedNumber.text(value)
    }

    static func seconds(_ value: Double) -> String {
        if value < 1 { return String(format: "%.1f ms", value * 1000) }
        return String(format: "%.2f s", value)
    }

    static func megabytes(kilobytes: Int) -> String {
        String(format: "%.1f MB", Double(kilobytes) / 1024)
    }

    static func rate(_ count: Int, per seconds: Double, unit: String) -> String {
        guard seconds > 0 else { return "- \(unit)/s" }
        return "\(number(Int((Double(count) / seconds).rounded()))) \(unit)/s"
    }
}
