import Foundation
@testable import SpotliteSearch

/// Files and helpers shared by the configuration suites.
enum ConfigurationTestSupport {
    /// The repository root, found from this file's location so tests run from any directory.
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func repositoryFile(_ relativePath: String) -> String {
        repositoryRoot.appendingPathComponent(relativePath).path
    }

    /// A fresh directory under the system's temporary directory; the caller removes it.
    static func makeTemporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-config-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Parses `toml` against a fixed base directory and returns the error it must raise, or nil if it parsed.
    static func error(parsing toml: String, source: String = "test.toml") -> ConfigurationError? {
        do {
            _ = try Configuration(tomlString: toml, source: source, baseDirectory: "/base")
            return nil
        } catch {
            return error
        }
    }

    /// A valid one-entity document with `fields` as the body of `[entities.Package.fields]` and `entity` as extra
    /// keys of `[entities.Package]`.
    static func package(fields: String = "name = { type = \"text\" }", entity: String = "", before: String = "") -> String {
        """
        \(before)
        [entities.Package]
        key = "name"
        \(entity)

        [entities.Package.fields]
        \(fields)
        """
    }
}
