import ArgumentParser

struct BadInputCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bad-input",
        abstract: "Fuzz queries; malformed configurations and imports; SQL injection; a damaged index; bad directories; a full disk.")

    @OptionGroup var options: SuiteOptions
    @Option(help: "Fuzzed searches through the Swift API (default 400 quick, 20,000 long).") var queries: Int?

    func run() throws {
        let report = try SuiteRunner.run("bad-input", options: options) { workspace, report in
            var settings = BadInputSuite.Settings.forMode(long: options.long)
            if let queries { settings.queries = queries }
            var suite = try BadInputSuite(workspace: workspace, report: report, settings: settings, seed: options.seed)
            try suite.run()
        }
        try SuiteRunner.exitStatus([report])
    }
}
