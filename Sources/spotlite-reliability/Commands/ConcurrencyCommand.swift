import ArgumentParser

struct ConcurrencyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "concurrency",
        abstract: "Four writers, index watch, a cleaner loop and a slow consumer at once; then the invariant and gap checks.")

    @OptionGroup var options: SuiteOptions
    @Option(help: "Transactions per writer (default 150 quick, 3000 long).") var transactions: Int?

    func run() throws {
        let report = try SuiteRunner.run("concurrency", options: options) { workspace, report in
            var settings = ConcurrencySuite.Settings.forMode(long: options.long)
            if let transactions { settings.transactions = transactions }
            var suite = try ConcurrencySuite(workspace: workspace, report: report, settings: settings, seed: options.seed)
            try suite.run()
        }
        try SuiteRunner.exitStatus([report])
    }

    func validate() throws {
        if let transactions, transactions < 1 { throw ValidationError("--transactions must be at least 1") }
    }
}
