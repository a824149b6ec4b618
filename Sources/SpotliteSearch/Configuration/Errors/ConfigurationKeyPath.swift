/// A dotted key path inside a configuration file, rendered the way TOML writes it, so that an error points at
/// exactly the key a user has to edit (`entities.Package.fields.size.type`).
package struct ConfigurationKeyPath: Hashable, Sendable, CustomStringConvertible {
    /// The root of the document.
    package static let root = ConfigurationKeyPath(components: [])

    package let components: [String]

    /// A path made of the given keys.
    package init(_ components: String...) {
        self.components = components
    }

    package init(components: [String]) {
        self.components = components
    }

    /// The path one level deeper.
    package func appending(_ key: String) -> ConfigurationKeyPath {
        ConfigurationKeyPath(components: components + [key])
    }

    package var description: String {
        components.map(Self.render).joined(separator: ".")
    }

    /// Bare keys stay bare; anything else is quoted like a TOML basic string, so that a hostile name such as
    /// `Package; DROP TABLE x` reads as the single key it is.
    package static func render(_ key: String) -> String {
        let isBare = !key.isEmpty && key.unicodeScalars.allSatisfy { scalar in
            switch scalar {
            case "A"..."Z", "a"..."z", "0"..."9", "_", "-": true
            default: false
            }
        }
        return isBare ? key : quoted(key)
    }

    /// A string written as a TOML basic string: quotes, backslashes and control characters escaped.
    package static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
