import ArgumentParser

struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Kill shard servers (xapian-tcpsrv on 127.0.0.1) mid-update and the indexer mid-rebuild; check the errors, the positions and the catch-up against a local index.")

    @OptionGroup var options: SuiteOptions
    @Option(help: "Number of trials (default 3 quick, 60 long).") var trials: Int?

    func run() throws {
        let report = try SuiteRunner.run("remote", options: options) { workspace, report in
            var settings = RemoteSuite.Settings.forMode(long: options.long)
            if let trials { settings.trials = trials }
            var suite = try RemoteSuite(workspace: workspace, report: report, settings: settings, seed: options.seed,
                                        long: options.long)
            try suite.run()
        }
        try SuiteRunner.exitStatus([report])
    }

    func validate() throws {
        if let trials, trials < 1 { throw ValidationError("--trials must be at least 1") }
    }
}
