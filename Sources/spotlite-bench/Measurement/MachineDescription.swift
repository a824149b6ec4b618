import Foundation
import GRDB
import Spotlite
import SpotliteTooling
#if canImport(Glibc)
import Glibc
#endif

/// The machine and software a run measured, printed above the table and kept in the JSON.
struct MachineDescription: Codable, Sendable {
    var date: String
    var cores: Int
    var memoryBytes: Int
    var processor: String
    var operatingSystem: String
    var swiftVersion: String
    var xapianVersion: String
    var sqliteVersion: String

    static func current() -> MachineDescription {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return MachineDescription(
            date: formatter.string(from: Date()),
            cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))),
            memoryBytes: Int(sysconf(Int32(_SC_PHYS_PAGES))) * Int(sysconf(Int32(_SC_PAGESIZE))),
            processor: cpuModel(),
            operatingSystem: osName(),
            swiftVersion: swiftVersion(),
            xapianVersion: XapianVersion.string,
            sqliteVersion: sqliteVersion())
    }

    var summary: String {
        String(format: "%@ · %d cores (%@) · %.1f GiB · %@ · %@ · Xapian %@ · SQLite %@",
               date, cores, processor, Double(memoryBytes) / 1_073_741_824, operatingSystem, swiftVersion,
               xapianVersion, sqliteVersion)
    }

    private static func sqliteVersion() -> String {
        (try? DatabaseQueue().read { db in try String.fetchOne(db, sql: "SELECT sqlite_version()") }).flatMap { $0 }
            ?? "unknown"
    }

    private static func cpuModel() -> String {
        guard let text = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown CPU" }
        for line in text.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown CPU"
    }

    private static func osName() -> String {
        guard let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8) else { return "Linux" }
        for line in text.split(separator: "\n") where line.hasPrefix("PRETTY_NAME=") {
            return line.dropFirst("PRETTY_NAME=".count).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
        return "Linux"
    }

    /// The first line of `swift --version`, when a toolchain is on the PATH.
    private static func swiftVersion() -> String {
        guard let outcome = try? ChildProcess.run("/usr/bin/env", ["swift", "--version"], error: .discard) else {
            return "swift: not on PATH"
        }
        let line = String(decoding: outcome.standardOutput, as: UTF8.self).split(separator: "\n").first.map(String.init)
        return line ?? "swift: unknown version"
    }
}
