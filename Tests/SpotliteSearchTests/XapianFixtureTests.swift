import Foundation
import SpotliteTestSupport
import Testing

@testable import SpotliteSearch

/// A directory under the system temporary directory, removed when released.
final class XapianTestDirectory {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-xapian-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A path inside the directory for a database named `name`.
    func database(_ name: String = "index") -> String {
        (path as NSString).appendingPathComponent(name)
    }
}

/// A small package catalogue, indexed the way the Spotlite indexer is expected to index entities.
struct XapianSamplePackage {
    let name: String
    let summary: String
    let section: String
    let size: Double
    let released: Date

    static let slotSection: UInt32 = 0
    static let slotSize: UInt32 = 1
    static let slotReleased: UInt32 = 2

    static let all: [XapianSamplePackage] = [
        XapianSamplePackage(name: "vim", summary: "Vi IMproved, a highly configurable text editor",
                            section: "editors", size: 3_900, released: date("2023-06-01")),
        XapianSamplePackage(name: "nano", summary: "small, friendly text editor inspired by Pico",
                            section: "editors", size: 2_800, released: date("2022-11-15")),
        XapianSamplePackage(name: "coreutils", summary: "GNU core utilities for files and text",
                            section: "utils", size: 18_000, released: date("2021-03-30")),
        XapianSamplePackage(name: "grep", summary: "GNU grep, egrep and fgrep search utilities",
                            section: "utils", size: 1_600, released: date("2023-01-10")),
        XapianSamplePackage(name: "xapian-tools", summary: "basic tools for the Xapian search engine library",
                            section: "text", size: 700, released: date("2023-02-12")),
    ]

    static func date(_ text: String) -> Date {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.date(from: text)!
    }

    /// Builds this package's document with `generator`.
    func document(generator: XapianTermGenerator) throws -> XapianDocument {
        let document = try XapianDocument()
        try generator.startDocument(document)
        try generator.indexText(name, weight: 4, prefix: "XNAME")
        try generator.indexText(name, weight: 4)
        try generator.increaseTermPosition()
        try generator.indexText(summary, weight: 2)
        try document.addBooleanTerm("XSECTION" + section)
        try document.setValue(slot: Self.slotSection, string: section)
        try document.setValue(slot: Self.slotSize, number: size)
        try document.setValue(slot: Self.slotReleased, number: released.timeIntervalSince1970)
        try document.setData(name)
        return document
    }

    /// Creates (or overwrites) a database at `path` holding `packages`, with spelling data, committed.
    static func buildIndex(at path: String, packages: [XapianSamplePackage] = all) throws {
        let database = try XapianWritableDatabase(path: path, action: .createOrOverwrite, noSync: true)
        let generator = try XapianTermGenerator(language: "english", stopwords: .english)
        try generator.setSpellingDatabase(database)
        for package in packages {
            try database.replaceDocument(uniqueTerm: "Q" + package.name, document: package.document(generator: generator))
        }
        try database.setMetadata("\(packages.count)", forKey: "indexed")
        try database.commit()
        try database.close()
    }

    /// A parser configured like the sample index.
    static func parser(for database: XapianDatabase? = nil) throws -> XapianQueryParser {
        let parser = try XapianQueryParser(language: "english", stopwords: .english)
        try parser.addPrefix(field: "name", prefix: "XNAME")
        try parser.addBooleanPrefix(field: "section", prefix: "XSECTION")
        try parser.addNumberRange(slot: slotSize, prefix: "size:")
        try parser.addDateRange(slot: slotReleased, prefix: "released:")
        if let database { try parser.setDatabase(database) }
        return parser
    }
}

/// The data of each hit, as text.
func names(_ results: XapianSearchResults) -> [String] {
    results.hits.map { String(decoding: $0.data, as: UTF8.self) }
}

@Suite("Xapian test fixture", .blockingWork)
struct XapianFixtureTests {
    @Test func theTemporaryDirectoryIsRemovedWhenReleased() throws {
        var directory: XapianTestDirectory? = try XapianTestDirectory()
        let path = try #require(directory?.path)
        try XapianSamplePackage.buildIndex(at: directory!.database())
        #expect(FileManager.default.fileExists(atPath: path))
        directory = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}

/// The engine's failure that `body` throws, as the wrappers throw every failure of the engine
/// (``SearchError/engine(_:outcome:)`` without an outcome); records an issue and returns nil when `body` throws
/// nothing or another error.
@discardableResult
func engineFailure<Result>(_ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                           _ body: () throws -> Result) -> XapianError? {
    do {
        _ = try body()
        Issue.record(comment ?? "the engine did not fail", sourceLocation: sourceLocation)
    } catch SearchError.engine(let error, nil) {
        return error
    } catch {
        let context = comment.map { " (\($0))" } ?? ""
        Issue.record("another error than the engine's: \(error)\(context)", sourceLocation: sourceLocation)
    }
    return nil
}
