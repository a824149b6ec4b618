import Foundation

/// Where the programs the suites run are: `spotlite` beside this executable (both are built together), the
/// `sqlite3` shell on the PATH.
enum Binaries {
    /// This executable.
    static var reliability: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// `spotlite`: `--spotlite PATH`, else `SPOTLITE_BINARY`, else the one beside this executable.
    static func spotlite(override: String?) throws -> String {
        let candidate = override ?? ProcessInfo.processInfo.environment["SPOTLITE_BINARY"]
            ?? ((reliability as NSString).deletingLastPathComponent + "/spotlite")
        guard FileManager.default.isExecutableFile(atPath: candidate) else {
            throw HarnessError("no spotlite executable at \(candidate); build it (swift build) or pass --spotlite PATH")
        }
        return candidate
    }

    /// The `sqlite3` shell.
    static func sqlite3() throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin"] {
            let candidate = "\(directory)/sqlite3"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw HarnessError("the sqlite3 shell is missing; install it (apt-get install sqlite3)")
    }
}
