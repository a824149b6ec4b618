import ArgumentParser

/// `spotlite-reliability`: the crash, concurrency, bad-input, correctness, remote-shard and resource suites of Spotlite.
///
/// Each suite prints `<suite>: N passed, N failed` and its figures, is seeded (`--seed`), runs a quick version by
/// default (seconds; `make test` runs it) and a long one with `--long` (`make stress`).
@main
struct ReliabilityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "spotlite-reliability",
        abstract: "Crash, concurrency, bad-input, correctness, remote-shard and resource suites for Spotlite.",
        subcommands: [AllCommand.self, CrashCommand.self, ConcurrencyCommand.self, BadInputCommand.self,
                      CorrectnessCommand.self, RemoteCommand.self, ResourcesCommand.self, FullDiskCommand.self, CheckCommand.self, WriterCommand.self,
                      ConsumerCommand.self, ShardCrashCommand.self, EmbeddingCrashCommand.self, EmbedderCommand.self]
    )
}
