import ArgumentParser
import Foundation

struct EmbeddingCrashCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embedding-crash",
        abstract: "Kill the embedding consumer with SIGKILL in updates and rebuilds; the vectors must then equal the store.")

    @OptionGroup var options: SuiteOptions
    @Option(help: "Number of trials (default 6 quick, 40 long).") var trials: Int?
    @Option(help: "The model folder (default: $SPOTLITE_MODEL_DIR, else Index/models/all-MiniLM-L6-v2, as make deps installs it).")
    var model: String?

    func run() throws {
        let model = self.model ?? ProcessInfo.processInfo.environment["SPOTLITE_MODEL_DIR"]
            ?? FileManager.default.currentDirectoryPath + "/Index/models/all-MiniLM-L6-v2"
        let report = try SuiteRunner.run("embedding-crash", options: options) { workspace, report in
            var settings = EmbeddingCrashSuite.Settings.forMode(long: options.long)
            if let trials { settings.trials = trials }
            var suite = try EmbeddingCrashSuite(workspace: workspace, report: report, settings: settings,
                                                seed: options.seed, model: model)
            try suite.run()
        }
        try SuiteRunner.exitStatus([report])
    }

    func validate() throws {
        if let trials, trials < 1 { throw ValidationError("--trials must be at least 1") }
    }
}
