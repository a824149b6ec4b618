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
}
