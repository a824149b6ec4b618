import Foundation
import SpotliteTestSupport
import Testing
import Spotlite

/// Relative paths of a configuration file are relative to its folder, whatever the working directory.
@Suite("Configuration paths follow the file", .blockingWork)
struct ConfigurationFolderTests {
    @Test("without a base directory, store and index resolve against the file's folder")
    func pathsResolveAgainstTheFilesFolder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-config-\(UUID().uuidString)/config")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let file = folder.appendingPathComponent("spotlite.toml")
        try Data("store = \"../Index/store.sqlite\"\nindex = \"search\"\n".utf8).write(to: file)
        let configuration = try SpotliteConfiguration(contentsOf: file.path)
        #expect(configuration.storePath == folder.deletingLastPathComponent().appendingPathComponent("Index/store.sqlite").path)
        #expect(configuration.indexPath == folder.appendingPathComponent("search").path)
        // An explicit base directory still wins (the library's callers may want their own).
        let based = try SpotliteConfiguration(contentsOf: file.path, baseDirectory: "/srv/app")
        #expect(based.indexPath == "/srv/app/search")
    }
}
