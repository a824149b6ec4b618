import ArgumentParser

struct CorrectnessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "correctness",
        abstract: "No silent wrong answers: empty parses, byte-exact keys, huge integers, tampering by other programs, damaged documents, stopping watch, bounds, NUL, symlinks, budgets and authors, each followed by a byte-for-byte differential check.")

    @OptionGroup var options: SuiteOptions
    @Option(help: "Rounds of every class (default 1 quick, 10 long).") var rounds: Int?

    func run() throws {
        let report = try SuiteRunner.run("correctness", options: options) { workspace, report in
            var settings = CorrectnessSuite.Settings.forMode(long: options.long)
            if let rounds { settings.rounds = max(1, rounds) }
            var suite = try CorrectnessSuite(workspace: workspace, report: report, settings: settings, seed: options.seed)
            try suite.run()
        }
        try SuiteRunner.exitStatus([report])
    }
}
