import Foundation

/// Progress lines on stderr, so stdout carries only the table.
enum Progress {
    static func note(_ message: String) {
        FileHandle.standardError.write(Data(("spotlite-bench: " + message + "\n").utf8))
    }
}
