import ArgumentParser

/// The options every suite takes.
struct SuiteOptions: ParsableArguments {
    @Option(help: "The seed of every random choice; the same seed makes the same records, operations and kill delays.")
    var seed: UInt64 = 1

    @Flag(help: "The long version (make stress): many more trials, transactions and rows.")
    var long = false

    @Option(help: ArgumentHelp("The spotlite executable (default: the one beside this one, or SPOTLITE_BINARY).", valueName: "path"))
    var spotlite: String?

    @Flag(help: "Keep the scratch directory and print where it is.")
    var keep = false

    @Flag(help: "Print every passing case too (on stderr).")
    var verbose = false
}
