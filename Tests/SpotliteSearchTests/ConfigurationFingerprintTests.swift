import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

@Suite("Configuration fingerprint", .blockingWork)
struct ConfigurationFingerprintTests {
    static let base = """
    store = "Index/store.sqlite"
    index = "Index/search"

    [history]
    authors = ["app", "importer"]
    batch_authors = ["importer"]
    maximum_duration = "7d"
    clean = "none"

    [indexer]
    author = "spotlite.indexer"
    language = "en"
    stopwords = "en"
    batch_size = 1000

    [entities.Package]
    key = "name"
    preserve_on_delete = ["name"]

    [entities.Package.fields]
    name    = { type = "text", weight = 4, prefix = "name", store = true }
    summary = { type = "text", weight = 2 }
    section = { type = "keyword", facet = true }
    tags    = { type = "keyword", separator = " " }
    size    = { type = "number", sortable = true }
    version = { type = "stored" }

    [entities.Folder]
    key = "id"
    fields.title = { type = "text" }
    """

    static func configuration(_ toml: String) throws -> SpotliteConfiguration {
        try SpotliteConfiguration(tomlString: toml, source: "fingerprint.toml", baseDirectory: "/base")
    }

    /// `base` with the first occurrence of `original` replaced.
    static func variant(_ original: String, _ replacement: String) throws -> SpotliteConfiguration {
        let range = try #require(base.range(of: original), "\(original) is not in the base document")
        return try configuration(base.replacingCharacters(in: range, with: replacement))
    }

    @Test("FNV-1a 64 matches its published test vectors")
    func hashVectors() {
        #expect(FNV1a64.hexDigest(of: "") == "cbf29ce484222325")
        #expect(FNV1a64.hexDigest(of: "a") == "af63dc4c8601ec8c")
        #expect(FNV1a64.hexDigest(of: "foobar") == "85944171f73967e8")
    }

    @Test("the fingerprint is 16 hex digits and the same for the same configuration")
    func stable() throws {
        let first = try Self.configuration(Self.base)
        let second = try Self.configuration(Self.base)
        #expect(first.indexFingerprint == second.indexFingerprint)
        #expect(first.indexFingerprint.count == 16)
        #expect(first.indexFingerprint.allSatisfy { $0.isHexDigit && !$0.isUppercase })
        #expect(first.indexFingerprint == FNV1a64.hexDigest(of: first.indexDescription))
    }

    @Test("the canonical description lists every indexing setting")
    func description() throws {
        let lines = try Self.configuration(Self.base).indexDescription.split(separator: "\n").map(String.init)
        #expect(lines == [
            "spotlite-index-config/1",
            "language english",
            "stopwords \"en\"",
            "entity \"Folder\" key \"id\"",
            "field \"title\" text store=false weight=1 prefix=-",
            "entity \"Package\" key \"name\"",
            "field \"name\" text store=true weight=4 prefix=\"name\"",
            "field \"summary\" text store=false weight=2 prefix=-",
            "field \"section\" keyword store=false facet=true separator=-",
            "field \"tags\" keyword store=false facet=false separator=\" \"",
            "field \"size\" number store=false sortable=true",
            "field \"version\" stored store=true",
        ])
    }

    @Test("changing what shapes the index changes the fingerprint", arguments: [
        ("summary = { type = \"text\", weight = 2 }", "summary = { type = \"text\", weight = 3 }"),
        ("summary = { type = \"text\", weight = 2 }", "summary = { type = \"text\", weight = 2, prefix = \"summary\" }"),
        ("summary = { type = \"text\", weight = 2 }", "summary = { type = \"text\", weight = 2, store = true }"),
        ("summary = { type = \"text\", weight = 2 }", "summary = { type = \"keyword\" }"),
        ("summary = { type = \"text\", weight = 2 }", ""),
        ("version = { type = \"stored\" }", "version = { type = \"stored\" }\nhomepage = { type = \"stored\" }"),
        ("section = { type = \"keyword\", facet = true }", "section = { type = \"keyword\" }"),
        ("tags    = { type = \"keyword\", separator = \" \" }", "tags    = { type = \"keyword\", separator = \",\" }"),
        ("size    = { type = \"number\", sortable = true }", "size    = { type = \"date\", sortable = true }"),
        ("size    = { type = \"number\", sortable = true }", "size    = { type = \"number\" }"),
        ("language = \"en\"", "language = \"fr\""),
        ("language = \"en\"", "language = \"none\""),
        ("stopwords = \"en\"", "stopwords = \"none\""),
        ("key = \"name\"", "key = \"summary\""),
        ("[entities.Folder]\nkey = \"id\"\nfields.title = { type = \"text\" }", ""),
        ("[entities.Folder]", "[entities.Directory]"),
        (
            "name    = { type = \"text\", weight = 4, prefix = \"name\", store = true }\nsummary = { type = \"text\", weight = 2 }",
            "summary = { type = \"text\", weight = 2 }\nname    = { type = \"text\", weight = 4, prefix = \"name\", store = true }"
        ),
    ])
    func changes(original: String, replacement: String) throws {
        let base = try Self.configuration(Self.base)
        let changed = try Self.variant(original, replacement)
        #expect(changed.indexFingerprint != base.indexFingerprint, "\(replacement)")
    }

    @Test("changing anything else leaves the fingerprint alone", arguments: [
        ("store = \"Index/store.sqlite\"", "store = \"/elsewhere/store.sqlite\""),
        ("index = \"Index/search\"", "index = \"/elsewhere/search\""),
        ("batch_size = 1000", "batch_size = 7"),
        ("author = \"spotlite.indexer\"", "author = \"indexer-2\""),
        ("authors = [\"app\", \"importer\"]", "authors = [\"app\", \"importer\", \"widget\"]"),
        ("maximum_duration = \"7d\"", "maximum_duration = \"1h\""),
        ("clean = \"none\"", "clean = { notifications = 3 }"),
        ("preserve_on_delete = [\"name\"]", "preserve_on_delete = [\"name\", \"summary\"]"),
        ("language = \"en\"", "language = \"english\""),
        ("summary = { type = \"text\", weight = 2 }", "summary = { type = \"text\", weight = 2, store = false }"),
        ("version = { type = \"stored\" }", "version = { type = \"stored\", store = true }"),
        ("section = { type = \"keyword\", facet = true }", "section = {type=\"keyword\",facet=true} # spacing and comments"),
    ])
    func nonChanges(original: String, replacement: String) throws {
        let base = try Self.configuration(Self.base)
        let changed = try Self.variant(original, replacement)
        #expect(changed.indexFingerprint == base.indexFingerprint, "\(replacement)")
        #expect(changed.fingerprint(of: changed.entities[0]) == base.fingerprint(of: base.entities[0]))
    }

    @Test("entity order does not matter; the history and indexer tables may be left out")
    func entityOrderAndDefaults() throws {
        let base = try Self.configuration(Self.base)
        var reordered = base
        reordered.entities.reverse()
        #expect(reordered.indexFingerprint == base.indexFingerprint)

        var defaults = base
        defaults.history = HistoryConfiguration()
        defaults.indexer = IndexerConfiguration()
        defaults.storePath = "x"
        #expect(defaults.indexFingerprint == base.indexFingerprint)
    }

    @Test("an entity's own fingerprint follows its fields and the language, not other entities")
    func entityFingerprint() throws {
        let base = try Self.configuration(Self.base)
        let package = try #require(base.entity(named: "Package"))
        let folder = try #require(base.entity(named: "Folder"))
        #expect(base.fingerprint(of: package) != base.fingerprint(of: folder))

        let folderChanged = try Self.variant("fields.title = { type = \"text\" }", "fields.title = { type = \"text\", weight = 9 }")
        #expect(folderChanged.fingerprint(of: try #require(folderChanged.entity(named: "Package"))) == base.fingerprint(of: package))
        #expect(folderChanged.fingerprint(of: try #require(folderChanged.entity(named: "Folder"))) != base.fingerprint(of: folder))

        let french = try Self.variant("language = \"en\"", "language = \"fr\"")
        #expect(french.fingerprint(of: try #require(french.entity(named: "Package"))) != base.fingerprint(of: package))
    }
}
