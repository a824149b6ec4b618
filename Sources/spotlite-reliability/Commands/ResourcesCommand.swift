import ArgumentParser

struct ResourcesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "resources",
        abstract: "A 10 MB text field, one huge batch transaction, many distinct keywords: time, memory and scaling.")

    @OptionGroup var options: SuiteOptions

    func run() throws {
        let report = try SuiteRunner.run("resources", options: options) { workspace, report in
            var suite = try ResourcesSuite(workspace: workspace, report: report,
                                           settings: .forMode(long: options.long), seed: options.seed)
            try suite.run()
        }
        try SuiteRunner.exitStatus([report])
    }
}
