import ArgumentParser

struct CrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "crash",
        abstract: "Kill index update / rebuild / watch, import and writers with SIGKILL at random moments; check the invariant after each.")

    @OptionGroup var options: SuiteOptions
    @Option(help: "Number of trials (default 12 quick, 120 long).") var trials: Int?

    func run() throws {
        let report = try SuiteRunner.run("crash", options: options) { workspace, report in
            var settings = CrashSuite.Settings.forMode(long: options.long)
            if let trials { settings.trials = trials }
            var suite = try CrashSuite(workspace: workspace, report: report, settings: settings, seed: options.seed)
            try suite.run()
        }
        try SuiteRunner.exitStatus([report])
    }

    func validate() throws {
        if let trials, trials < 1 { throw ValidationError("--trials must be at least 1") }
    }
}
