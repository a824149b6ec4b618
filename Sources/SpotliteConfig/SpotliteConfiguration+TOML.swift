import SpotliteStore
import SpotliteSearch
import Foundation
import TOMLKit

extension SpotliteConfiguration {
    /// Reads and checks the configuration file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file, absolute or relative to the current directory; errors name it as given.
    ///   - baseDirectory: the directory relative `store` and `index` paths are resolved against; the folder of
    ///     the file when nil, so that a configuration means the same files from any working directory.
    /// - Throws: ``ConfigurationError`` when the file cannot be read, is not valid TOML or breaks a rule.
    public init(contentsOf path: String, baseDirectory: String? = nil) throws(ConfigurationError) {
        let text = try Self.readText(at: path)
        let folder = (Self.resolvePath(path, against: FileManager.default.currentDirectoryPath) as NSString)
            .deletingLastPathComponent
        try self.init(tomlString: text, source: path, baseDirectory: baseDirectory ?? folder)
    }

    /// Reads and checks the configuration file at a file URL; see `init(contentsOf:baseDirectory:)` taking a path.
    public init(contentsOf url: URL, baseDirectory: URL? = nil) throws(ConfigurationError) {
        guard url.isFileURL else {
            throw ConfigurationError(
                source: url.absoluteString, keyPath: "", kind: .unreadableFile,
                message: "cannot read the configuration: only local files are supported; pass a file path"
            )
        }
        try self.init(contentsOf: url.path, baseDirectory: baseDirectory?.path)
    }

    /// Parses and checks configuration text.
    ///
    /// - Parameters:
    ///   - tomlString: the TOML document.
    ///   - source: how errors name the document, usually its path.
    ///   - baseDirectory: the directory relative `store` and `index` paths are resolved against; the current
    ///     directory when nil.
    /// - Throws: ``ConfigurationError`` when the text is not valid TOML or breaks a rule.
    public init(tomlString: String, source: String = "configuration", baseDirectory: String? = nil) throws(ConfigurationError) {
        let root = try Self.parseTOML(tomlString, source: source)
        let decoder = ConfigurationDecoder(source: source, order: TOMLKeyOrder(source: tomlString))
        var configuration = try decoder.decode(root)
        try configuration.validate(source: source)
        let base = baseDirectory ?? Self.currentDirectory
        configuration.storePath = Self.resolvePath(configuration.storePath, against: base)
        configuration.indexPath = Self.resolvePath(configuration.indexPath, against: base)
        if let locations = configuration.shards.locations {
            configuration.shards = .locations(locations.map { location in
                if case let .path(path) = location { return .path(Self.resolvePath(path, against: base)) }
                return location
            })
        }
        configuration.resolveMigrationFiles(against: base)
        if var embeddings = configuration.embeddings {
            if embeddings.modelIsPath { embeddings.model = Self.resolvePath(embeddings.model, against: base) }
            embeddings.modelsPath = embeddings.modelsPath.map { Self.resolvePath($0, against: base) }
            embeddings.indexPath = embeddings.indexPath.map { Self.resolvePath($0, against: base) }
            configuration.embeddings = embeddings
        }
        self = configuration
    }

    private static func readText(at path: String) throws(ConfigurationError) -> String {
        func failure(_ message: String) -> ConfigurationError {
            ConfigurationError(source: path, keyPath: "", kind: .unreadableFile, message: message)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw failure("cannot read the configuration: no such file; check the path")
        }
        guard !isDirectory.boolValue else {
            throw failure("cannot read the configuration: this is a directory; name the .toml file inside it")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw failure("cannot read the configuration: \(error.localizedDescription); check its permissions")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw failure("cannot read the configuration: it is not UTF-8 text; save it as UTF-8")
        }
        return text
    }

    private static func parseTOML(_ text: String, source: String) throws(ConfigurationError) -> TOMLTable {
        // toml++ reads a C string, so a NUL would silently end the document early; TOML forbids it anyway.
        var line = 1, column = 1
        for byte in text.utf8 {
            if byte == 0 {
                throw ConfigurationError(
                    source: source, keyPath: "", kind: .syntax(line: line, column: column),
                    message: "invalid TOML: a NUL character is not allowed; remove it"
                )
            }
            (line, column) = byte == UInt8(ascii: "\n") ? (line + 1, 1) : (line, column + 1)
        }
        // An escaped NUL (\u0000, \U00000000) is valid TOML, but the parser hands strings over as C strings: a path
        // would be cut short at it without a word.
        if let position = escapedNUL(in: text) {
            throw ConfigurationError(
                source: source, keyPath: "", kind: .syntax(line: position.line, column: position.column),
                message: "a NUL character (\\u0000) cannot be part of a value (paths and names end at it); remove it"
            )
        }
        do {
            return try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            let begin = error.source.begin
            throw ConfigurationError(
                source: source, keyPath: "", kind: .syntax(line: begin.line, column: begin.column),
                message: "invalid TOML: \(error.description)"
            )
        } catch {
            throw ConfigurationError(source: source, keyPath: "", kind: .syntax(line: 1, column: 1), message: "invalid TOML: \(error)")
        }
    }

    /// Where `text` has `\u0000` or `\U00000000` after an odd run of backslashes (an escape, not a literal
    /// backslash followed by "u0000"), as a line and column; nil when nowhere.
    private static func escapedNUL(in text: String) -> (line: Int, column: Int)? {
        let bytes = Array(text.utf8)
        var line = 1, column = 1, backslashes = 0
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                backslashes += 1
            } else {
                if backslashes % 2 == 1 {
                    let rest = bytes[index...]
                    if rest.starts(with: Array("u0000".utf8)) || rest.starts(with: Array("U00000000".utf8)) {
                        return (line, column - 1)
                    }
                }
                backslashes = 0
            }
            (line, column) = byte == UInt8(ascii: "\n") ? (line + 1, 1) : (line, column + 1)
        }
        return nil
    }
}
