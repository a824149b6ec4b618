/// A configuration that cannot be used, described so that the reader knows which file and key to fix and how.
///
/// `description` reads like
/// `config/spotlite.toml: entities.Package.fields.size.type: expected one of text, keyword, number, date, stored; found "integer"`.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable, Hashable {
    /// What went wrong, broadly; `message` has the details.
    public enum Kind: Sendable, Hashable {
        /// The file could not be read (missing, a directory, not UTF-8, ...).
        case unreadableFile
        /// The text is not valid TOML; the position is 1-based.
        case syntax(line: Int, column: Int)
        /// A key that the format does not define.
        case unknownKey
        /// A required key is absent.
        case missingKey
        /// A value of the wrong TOML type (a string where an integer belongs, ...).
        case wrongType
        /// A value of the right type that is not allowed (weight 0, an unknown stemmer, a bad identifier, ...).
        case invalidValue
        /// Two otherwise valid settings that cannot both hold (duplicate names, clashing query prefixes, ...).
        case conflict
    }

    /// The file the configuration came from, as the caller named it, or a label such as `SpotliteConfiguration` for one
    /// built in Swift.
    public let source: String
    /// The dotted TOML key path of the offending key (`entities.Package.fields.size.type`); empty for errors about
    /// the file as a whole.
    public let keyPath: String
    /// The broad category of the problem.
    public let kind: Kind
    /// What was expected and what was found, and the way out when it is not obvious.
    public let message: String

    /// Creates an error; `keyPath` is empty for errors about the whole file.
    public init(source: String, keyPath: String, kind: Kind, message: String) {
        self.source = source
        self.keyPath = keyPath
        self.kind = kind
        self.message = message
    }

    package init(source: String, at path: ConfigurationKeyPath, kind: Kind, _ message: String) {
        self.init(source: source, keyPath: path.description, kind: kind, message: message)
    }

    /// `spotlite: <file>: <key>: <problem>` in one line, as the command line prints it.
    public var description: String {
        switch kind {
        case let .syntax(line, column):
            "\(source): line \(line), column \(column): \(message)"
        default:
            keyPath.isEmpty ? "\(source): \(message)" : "\(source): \(keyPath): \(message)"
        }
    }
}
