import Foundation
import SpotliteStore
import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

@Suite("Configuration loading", .blockingWork)
struct ConfigurationLoadingTests {
    @Test("the default config/spotlite.toml parses to the documented values")
    func defaultFile() throws {
        let path = ConfigurationTestSupport.repositoryFile("config/spotlite.toml")
        // Its paths are relative to its folder, config/: the store is Index/ beside that folder.
        let configuration = try SpotliteConfiguration(contentsOf: path, baseDirectory: "/work/project/config")

        #expect(configuration.storePath == "/work/project/Index/store.sqlite")
        #expect(configuration.indexPath == "/work/project/Index/search")
        #expect(configuration.history == HistoryConfiguration(
            authors: ["app", "importer"],
            batchAuthors: ["importer"],
            mirrorAuthors: [],
            maximumDuration: .seconds(7 * 86400),
            deletionSchedule: .none
        ))
        #expect(configuration.history.requiredAuthors == ["app"])
        #expect(configuration.indexer == IndexerConfiguration(author: "spotlite.indexer", language: "en", stopwords: "en", batchSize: 1000))
        #expect(configuration.indexer.stemmerName == "english")

        let package = try #require(configuration.entity(named: "Package"))
        #expect(configuration.entities.map(\.name) == ["Package"])
        #expect(package.key == "name")
        #expect(package.preserveOnDelete == ["name", "summary", "version"])
        #expect(package.fields == [
            .text("name", weight: 4, prefix: "name", store: true),
            .text("summary", weight: 2, store: true),
            .text("description"),
            .text("maintainer", prefix: "maintainer", store: true),
            .keyword("section", facet: true, store: true),
            .keyword("tags", facet: true, separator: " "),
            .stored("version"),
            .stored("homepage"),
        ])
        #expect(package.columns == ["name", "summary", "description", "maintainer", "section", "tags", "version", "homepage"])
        #expect(package.field(named: "version")?.isStored == true)
        #expect(package.field(named: "version")?.isSearchable == false)
        #expect(package.field(named: "size") == nil)
        #expect(configuration.entity(named: "package") == nil)
    }

    @Test("the minimal example takes every default")
    func minimalExample() throws {
        let path = ConfigurationTestSupport.repositoryFile("config/examples/minimal.toml")
        let configuration = try SpotliteConfiguration(contentsOf: path, baseDirectory: "/srv/app")

        #expect(configuration.storePath == "/srv/app/" + SpotliteConfiguration.defaultStorePath)
        #expect(configuration.indexPath == "/srv/app/" + SpotliteConfiguration.defaultIndexPath)
        #expect(configuration.history == HistoryConfiguration())
        #expect(configuration.indexer == IndexerConfiguration())
        #expect(configuration.entities == [EntityConfiguration(name: "Note", key: "id", fields: [.text("body")])])
    }

    @Test("the two-entity example keeps file order and every option")
    func notesExample() throws {
        let path = ConfigurationTestSupport.repositoryFile("config/examples/notes.toml")
        let configuration = try SpotliteConfiguration(contentsOf: URL(fileURLWithPath: path), baseDirectory: URL(fileURLWithPath: "/home/me"))

        #expect(configuration.storePath == "/home/me/Data/notes.sqlite")
        #expect(configuration.indexPath == "/home/me/Data/notes-index")
        #expect(configuration.history.authors == ["app", "widget", "sync"])
        #expect(configuration.history.batchAuthors == ["widget"])
        #expect(configuration.history.mirrorAuthors == ["sync"])
        #expect(configuration.history.requiredAuthors == ["app", "sync"])
        #expect(configuration.history.maximumDuration == .seconds(30 * 86400))
        #expect(configuration.history.deletionSchedule == .every(.seconds(6 * 3600)))
        #expect(configuration.indexer.language == "english")
        #expect(configuration.indexer.stopwords == "none")
        #expect(configuration.indexer.batchSize == 200)

        // Note comes first in the file although Folder sorts first: file order is kept.
        #expect(configuration.entities.map(\.name) == ["Note", "Folder"])
        let note = try #require(configuration.entity(named: "Note"))
        #expect(note.preserveOnDelete == ["id", "title", "folder"])
        #expect(note.fields == [
            .text("title", weight: 3, prefix: "title", store: true),
            .text("body"),
            .keyword("folder", facet: true, store: true),
            .keyword("labels", facet: true, separator: ","),
            .date("modified", sortable: true, store: true),
            .number("words", sortable: true),
            .stored("color"),
        ])
        #expect(note.columns.first == "id")
        let folder = try #require(configuration.entity(named: "Folder"))
        #expect(folder.fields == [.text("name", prefix: "title", store: true), .date("created")])
    }

    @Test("an empty file, or one with only comments, is a valid configuration with defaults and no entities")
    func emptyFile() throws {
        for text in ["", "\n\n", "# nothing configured yet\n"] {
            let configuration = try SpotliteConfiguration(tomlString: text, source: "empty.toml", baseDirectory: "/base")
            #expect(configuration == SpotliteConfiguration(
                storePath: "/base/Index/store.sqlite", indexPath: "/base/Index/search", entities: []
            ))
        }
    }

    @Test("empty tables take their defaults")
    func emptyTables() throws {
        let configuration = try SpotliteConfiguration(tomlString: "[history]\n[indexer]\n[entities]\n", baseDirectory: "/b")
        #expect(configuration.history == HistoryConfiguration())
        #expect(configuration.indexer == IndexerConfiguration())
        #expect(configuration.entities.isEmpty)
    }

    @Test("deletion schedules (`clean`) in every accepted spelling")
    func cleanPolicies() throws {
        let cases: [(String, HistoryDeletionSchedule)] = [
            ("clean = \"none\"", .none),
            ("clean = { every = \"4h\" }", .every(.seconds(4 * 3600))),
            ("clean = { every = \"90s\" }", .every(.seconds(90))),
            ("clean = { notifications = 50 }", .notifications(50)),
            ("clean.notifications = 1", .notifications(1)),
        ]
        for (line, expected) in cases {
            let configuration = try SpotliteConfiguration(tomlString: "[history]\n\(line)\n", baseDirectory: "/b")
            #expect(configuration.history.deletionSchedule == expected, "\(line)")
        }
    }

    @Test("every stemmer spelling Xapian 1.4 accepts, mapped to its own name")
    func languages() throws {
        let cases = ["en": "english", "english": "english", "fr": "french", "nb": "norwegian", "nn": "norwegian",
                     "no": "norwegian", "none": "none", "porter": "porter", "kraaij_pohlmann": "kraaij_pohlmann"]
        for (written, stemmer) in cases {
            let configuration = try SpotliteConfiguration(tomlString: "[indexer]\nlanguage = \"\(written)\"\n", baseDirectory: "/b")
            #expect(configuration.indexer.language == written)
            #expect(configuration.indexer.stemmerName == stemmer)
        }
        #expect(IndexerConfiguration(language: "el").stemmerName == nil)
    }

    @Test("entities and fields may be written as inline tables, sub-tables or dotted keys, and keep file order")
    func tableSpellings() throws {
        let toml = """
        [entities]
        Zebra = { key = "id", fields = { stripes = { type = "number" }, alpha = { type = "text" } } }
        Apple.key = "id"
        Apple.fields.zest.type = "keyword"
        Apple.fields.aroma = { type = "text", weight = 2 }

        [entities.Mango]
        key = "id"
        [entities.Mango.fields.skin]
        type = "stored"
        """
        let configuration = try SpotliteConfiguration(tomlString: toml, baseDirectory: "/b")
        #expect(configuration.entities.map(\.name) == ["Zebra", "Apple", "Mango"])
        #expect(configuration.entity(named: "Zebra")?.fields.map(\.name) == ["stripes", "alpha"])
        #expect(configuration.entity(named: "Apple")?.fields == [.keyword("zest"), .text("aroma", weight: 2)])
        #expect(configuration.entity(named: "Mango")?.fields == [.stored("skin")])
    }

    @Test("the key may also be a field of any type")
    func keyAsField() throws {
        for type in FieldType.allCases {
            let toml = ConfigurationTestSupport.package(fields: "name = { type = \"\(type)\" }")
            let configuration = try SpotliteConfiguration(tomlString: toml, baseDirectory: "/b")
            #expect(configuration.entity(named: "Package")?.columns == ["name"])
        }
    }

    @Test("stored fields are stored whether or not store = true is written")
    func storedFields() throws {
        let toml = ConfigurationTestSupport.package(fields: """
        name = { type = "text" }
        a = { type = "stored" }
        b = { type = "stored", store = true }
        """)
        let fields = try #require(SpotliteConfiguration(tomlString: toml, baseDirectory: "/b").entity(named: "Package")?.fields)
        #expect(fields[1] == .stored("a"))
        #expect(fields[2] == .stored("b"))
        #expect(fields.allSatisfy { $0.type != .stored || $0.store })
    }

    @Test("relative paths resolve against the base directory; absolute and home paths do not")
    func pathResolution() throws {
        let home = try #require(ProcessInfo.processInfo.environment["HOME"])
        let cases: [(String, String)] = [
            ("data/store.sqlite", "/base/dir/data/store.sqlite"),
            ("./data//store.sqlite", "/base/dir/data/store.sqlite"),
            ("../other/store.sqlite", "/base/other/store.sqlite"),
            ("/var/lib/spotlite/store.sqlite", "/var/lib/spotlite/store.sqlite"),
            ("/var/lib/../tmp/./x", "/var/tmp/x"),
            ("~/spotlite/store.sqlite", SpotliteConfiguration.resolvePath(home + "/spotlite/store.sqlite", against: "/")),
            ("~user/x", "/base/dir/~user/x"),
        ]
        for (written, expected) in cases {
            #expect(SpotliteConfiguration.resolvePath(written, against: "/base/dir") == expected, "\(written)")
            let configuration = try SpotliteConfiguration(tomlString: "store = \"\(written)\"\n", baseDirectory: "/base/dir")
            #expect(configuration.storePath == expected)
        }
    }

    @Test("without a base directory, relative paths resolve against the current directory")
    func currentDirectoryBase() throws {
        let configuration = try SpotliteConfiguration(tomlString: "index = \"idx\"\n")
        let current = FileManager.default.currentDirectoryPath
        #expect(configuration.indexPath == SpotliteConfiguration.resolvePath("idx", against: current))
        #expect(configuration.indexPath.hasPrefix("/"))
    }

    @Test("reading a real file from a temporary directory")
    func readsFile() throws {
        let directory = try ConfigurationTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("spotlite.toml")
        try ConfigurationTestSupport.package().write(to: file, atomically: true, encoding: .utf8)

        let configuration = try SpotliteConfiguration(contentsOf: file.path, baseDirectory: directory.path)
        #expect(configuration.storePath == directory.path + "/Index/store.sqlite")
        #expect(configuration.entities.map(\.name) == ["Package"])
    }

    @Test("a missing file, a directory and a non-UTF-8 file are errors naming the file")
    func unreadableFiles() throws {
        let directory = try ConfigurationTestSupport.makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let latin1 = directory.appendingPathComponent("latin1.toml")
        try Data([0x23, 0x20, 0xE9, 0x74, 0xE9, 0x0A]).write(to: latin1)
        let cases: [(path: String, fragment: String)] = [
            (directory.appendingPathComponent("missing.toml").path, "no such file"),
            (directory.path, "is a directory"),
            (latin1.path, "not UTF-8"),
        ]
        for (path, fragment) in cases {
            let error = #expect(throws: ConfigurationError.self) { try SpotliteConfiguration(contentsOf: path) }
            #expect(error?.kind == .unreadableFile)
            #expect(error?.source == path)
            #expect(error?.keyPath == "")
            #expect(error?.description.hasPrefix(path + ": cannot read the configuration") == true)
            #expect(error?.message.contains(fragment) == true, "\(error?.description ?? "")")
        }
    }

    @Test("a URL that is not a local file is refused before anything is read")
    func remoteURL() throws {
        let url = try #require(URL(string: "https://example.com/spotlite.toml"))
        let error = #expect(throws: ConfigurationError.self) { try SpotliteConfiguration(contentsOf: url) }
        #expect(error?.kind == .unreadableFile)
        #expect(error?.source == "https://example.com/spotlite.toml")
        #expect(error?.message.contains("only local files are supported") == true)
    }

    @Test("a configuration built in Swift validates like a file")
    func swiftBuiltConfiguration() throws {
        var configuration = SpotliteConfiguration(
            history: HistoryConfiguration(authors: ["app"], deletionSchedule: .notifications(10)),
            entities: [
                EntityConfiguration(name: "Note", key: "id", preserveOnDelete: ["title"], fields: [
                    .text("title", weight: 2, prefix: "title", store: true),
                    .keyword("tag", separator: ","),
                    .number("size", sortable: true),
                ]),
            ]
        )
        try configuration.validate()
        #expect(configuration.storePath == SpotliteConfiguration.defaultStorePath)

        configuration.entities[0].fields[0].facet = true
        let facetError = #expect(throws: ConfigurationError.self) { try configuration.validate(source: "AppConfig") }
        #expect(facetError?.description == "AppConfig: entities.Note.fields.title.facet: "
            + "expected facet only on keyword fields; found it on a text field; remove it or change the type to \"keyword\"")

        configuration.entities[0].fields[0].facet = false
        configuration.entities[0].fields[0].weight = 0
        let weightError = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(weightError?.keyPath == "entities.Note.fields.title.weight")
        #expect(weightError?.source == "configuration")

        configuration.entities[0].fields[0].weight = 1
        configuration.entities[0].fields[2] = FieldConfiguration(name: "size", type: .number, weight: 3)
        let misplacedWeight = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(misplacedWeight?.keyPath == "entities.Note.fields.size.weight")

        configuration.entities[0].fields[2] = .stored("size")
        configuration.entities[0].fields[2].store = false
        let storeError = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(storeError?.keyPath == "entities.Note.fields.size.store")

        configuration.entities[0].fields[2].store = true
        configuration.history.deletionSchedule = .every(.zero)
        let cleanError = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(cleanError?.keyPath == "history.clean.every")

        configuration.history.deletionSchedule = .notifications(0)
        let notificationsError = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(notificationsError?.keyPath == "history.clean.notifications")

        configuration.history.deletionSchedule = .none
        configuration.history.maximumDuration = .seconds(-1)
        let maximumError = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(maximumError?.keyPath == "history.maximum_duration")

        configuration.history.maximumDuration = nil
        configuration.indexPath = ""
        let pathError = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(pathError?.keyPath == "index")

        configuration.indexPath = "Index/search"
        configuration.entities.append(configuration.entities[0])
        let duplicateError = #expect(throws: ConfigurationError.self) { try configuration.validate() }
        #expect(duplicateError?.keyPath == "entities.Note")
        #expect(duplicateError?.kind == .conflict)
    }
}


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
            _ = try SpotliteConfiguration(tomlString: toml, source: source, baseDirectory: "/base")
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
