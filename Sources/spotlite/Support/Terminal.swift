import SpotliteSearch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where output goes and how it looks: bold and progress only on terminals.
enum Terminal {
    static var stdoutIsTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    static let bold = "\u{1B}[1m"
    static let reset = "\u{1B}[0m"
    static let dim = "\u{1B}[2m"

    /// Whether stdout gets bold and faint text: `--color always|never` decides, else NO_COLOR (any non-empty value,
    /// see no-color.org) turns it off, else a terminal turns it on. Read once from the command line, before the
    /// argument parser runs, so that even its errors follow it.
    static let usesColor: Bool = {
        switch ColorChoice.fromCommandLine(CommandLine.arguments) {
        case .always: return true
        case .never: return false
        case .auto, nil:
            if let noColor = ProcessInfo.processInfo.environment["NO_COLOR"], !noColor.isEmpty { return false }
            if ProcessInfo.processInfo.environment["TERM"] == "dumb" { return false }
            return stdoutIsTerminal
        }
    }()

    /// `text` in bold when colors are on.
    static func strong(_ text: String) -> String {
        usesColor ? bold + text + reset : text
    }

    static func faint(_ text: String) -> String {
        usesColor ? dim + text + reset : text
    }

    /// One line on stderr: `spotlite: message` (newlines folded so it stays one line).
    static func printError(_ message: String) {
        let line = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
        FileHandle.standardError.write(Data("spotlite: \(line)\n".utf8))
    }

    /// A log line on stderr.
    static func log(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }

    static func number(_ value: Int) -> String {
        GroupedNumber.text(value)
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 0.001 { return String(format: "%.0f µs", seconds * 1e6) }
        if seconds < 1 { return String(format: "%.1f ms", seconds * 1e3) }
        if seconds < 120 { return String(format: "%.2f s", seconds) }
        return String(format: "%d min %02d s", Int(seconds) / 60, Int(seconds) % 60)
    }
}
