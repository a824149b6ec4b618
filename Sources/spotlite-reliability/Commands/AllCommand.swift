import ArgumentParser

struct AllCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "all", abstract: "Run every suite, one after the other.")

    @OptionGroup var options: SuiteOptions

    func run() throws {
        var reports: [SuiteReport] = []
        reports.append(try SuiteRunner.run("crash", options: options) { workspace, report in
            var suite = try CrashSuite(workspace: workspace, report: report,
                                       settings: .forMode(long: options.long), seed: options.seed)
            try suite.run()
        })
        reports.append(try SuiteRunner.run("concurrency", options: options) { workspace, report in
            var suite = try ConcurrencySuite(workspace: workspace, report: report,
                                             settings: .forMode(long: options.long), seed: options.seed)
            try suite.run()
        })
        reports.append(try SuiteRunner.run("bad-input", options: options) { workspace, report in
            var suite = try BadInputSuite(workspace: workspace, report: report,
                                          settings: .forMode(long: options.long), seed: options.seed)
            try suite.run()
        })
        reports.append(try SuiteRunner.run("correctness", options: options) { workspace, report in
            var suite = try CorrectnessSuite(workspace: workspace, report: report,
                                             settings: .forMode(long: options.long), seed: options.seed)
            try suite.run()
        })
        reports.append(try SuiteRunner.run("remote", options: options) { workspace, report in
            var suite = try RemoteSuite(workspace: workspace, report: report, settings: .forMode(long: options.long),
                                        seed: options.seed, long: options.long)
            try suite.run()
        })
        reports.append(try SuiteRunner.run("resources", options: options) { workspace, report in
            var suite = try ResourcesSuite(workspace: workspace, report: report,
                                           settings: .forMode(long: options.long), seed: options.seed)
            try suite.run()
        })
        reports.append(try SuiteRunner.run("full-disk", options: options) { workspace, report in
            var suite = try FullDiskSuite(workspace: workspace, report: report,
                                          settings: .forMode(long: options.long), seed: options.seed)
            try suite.run()
        })
        print("all: \(reports.map(\.passed).reduce(0, +)) passed, \(reports.map(\.failed).reduce(0, +)) failed")
        try SuiteRunner.exitStatus(reports)
    }
}
