import Foundation

extension SpotliteConfiguration {
    /// Checks every rule of the file format against this value: names, ranges, options that fit their field type,
    /// and settings that contradict each other. The loaders call it; call it yourself on a configuration built or
    /// changed in Swift.
    ///
    /// - Parameter source: how errors name this configuration.
    /// - Throws: ``ConfigurationError`` with the TOML key path of the first problem found.
    public func validate(source: String = "configuration") throws(ConfigurationError) {
        try ConfigurationValidator(source: source).validate(self)
        try validateModel(source: source)
    }

    /// `path` made absolute against `baseDirectory`, with `.` and `..` steps and repeated slashes removed (lexically,
    /// without following symbolic links). A leading `~` stands for the home directory, as it would in a shell.
    public static func resolvePath(_ path: String, against baseDirectory: String) -> String {
        var expanded = path
        if path == "~" || path.hasPrefix("~/") {
            expanded = homeDirectory + path.dropFirst()
        }
        let joined = expanded.hasPrefix("/") ? expanded : baseDirectory + "/" + expanded
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": _ = parts.popLast()
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The process's current directory, the default base of relative paths.
    package static var currentDirectory: String {
        FileManager.default.currentDirectoryPath
    }

    private static var homeDirectory: String {
        ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
    }
}
