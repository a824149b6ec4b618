import ArgumentParser

/// The options every command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The configuration file (default: config/spotlite.toml when it exists).", valueName: "path"))
    var config: String?

    @Option(name: .long, help: ArgumentHelp("The SQLite store, overriding the configuration's `store`.", valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp("The index directory, overriding the configuration's `index`.", valueName: "path"))
    var index: String?

    @Flag(name: .long, help: "Show progress bars on stderr even when it is not a terminal.")
    var progress = false

    @Option(name: .long, help: ArgumentHelp("Bold and faint text on stdout: auto (on a terminal, unless NO_COLOR is set), always or never.", valueName: "when"))
    var color: ColorChoice = .auto
}

/// `--color auto|always|never`.
enum ColorChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, always, never

    /// The last `--color X` or `--color=X` before a `--` (the option's value as the parser will read it), or nil.
    static func fromCommandLine(_ arguments: [String]) -> ColorChoice? {
        var choice: ColorChoice?
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" { break }
            if argument == "--color", index + 1 < arguments.endIndex {
                choice = ColorChoice(rawValue: arguments[index + 1]) ?? choice
                index += 1
            } else if argument.hasPrefix("--color=") {
                choice = ColorChoice(rawValue: String(argument.dropFirst("--color=".count))) ?? choice
            }
            index += 1
        }
        return choice
    }
}
