import ArgumentParser

struct FullDiskCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "full-disk",
        abstract: "Import, update, rebuild, watch and clean on a small tmpfs, full and read-only; check every shard after each step and that the index catches up once space returns (root: it mounts the tmpfs; skipped otherwise).")

    @OptionGroup var options: SuiteOptions
    @Option(help: "Number of trials (default 2 quick, 30 long).") var trials: Int?

    func run() throws {
        let report = try SuiteRunner.run("full-disk", options: options) { workspace, report in
            var settings = FullDiskSuite.Settings.forMode(long: options.long)
            if let trials { settings.trials = trials }
            var suite = try FullDiskSuite(workspace: workspace, report: report, settings: settings, seed: options.seed)
            try suite.run()
        }
        try SuiteRunner.exitStatus([report])
    }

    func validate() throws {
        if let trials, trials < 1 { throw ValidationError("--trials must be at least 1") }
    }
}
