import ArgumentParser
import Foundation
import Spotlite
import SpotliteJSON

struct IndexCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "index",
        abstract: "Build, update, follow, inspect or delete the search index.",
        subcommands: [Update.self, Rebuild.self, Watch.self, Status.self, Delete.self, Replicate.self]
    )

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Apply the history since the index's token; rebuild first when needed (and say why).",
            discussion: """
            The first update builds the index from the store's rows; later ones apply only the changes recorded \
            since, by any writer. A changed configuration (fields, language, stopwords) or history deleted before \
            the index read it makes the update rebuild, and it says why.

            EXAMPLES
              spotlite index update
              spotlite index update --json
            """)

        @Flag(help: "Print the summary as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await IndexCommand.runUpdate(options: options, json: json, rebuild: false)
        }
    }

    struct Rebuild: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Build a fresh index from the store's rows beside the live one and switch to it atomically.",
            discussion: """
            Searches keep using the live index until the new one is complete.

            EXAMPLES
              spotlite index rebuild
              spotlite index rebuild --json --progress 2> rebuild.log
            """)

        @Flag(help: "Print the summary as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            try await IndexCommand.runUpdate(options: options, json: json, rebuild: true)
        }
    }

    static func runUpdate(options: GlobalOptions, json: Bool, rebuild: Bool) async throws {
        let environment = try CommandEnvironment(options: options)
        try environment.refuseReplica()
        let store = try environment.openStore(create: false)
        ReplicationServer.enableChangesets(forIndexAt: environment.configuration.indexPath)
        let indexer = try environment.makeIndexer(store: store)
        let bar = ProgressBar(label: "Indexing", unit: "records", enabled: environment.showsProgress)
        await indexer.setProgressHandler { bar.update(done: $0.done, total: $0.total) }
        let summary = rebuild ? try await indexer.rebuild() : try await indexer.update()
        bar.finish()
        // The vectors follow from their own position, after the keyword index: a model that cannot be loaded
        // leaves the keyword index updated and says what to do.
        var vectors: (summary: IndexUpdateSummary, path: String)?
        if let semantic = try environment.makeSemanticIndex() {
            vectors = (try await semantic.update(store: store, rebuild: rebuild), semantic.vectors.path)
        }
        if json {
            var object = summary.jsonObject
            if let vectors { object["embeddings"] = vectors.summary.jsonObject }
            JSONOutput.print(object)
        } else {
            printSummary(summary, indexPath: indexer.indexPath)
            if let vectors { printSummary(vectors.summary, vectorsPath: vectors.path) }
        }
        if let warning = unreadableWarning(summary) { Terminal.printError(warning) }
    }

    static func printSummary(_ summary: IndexUpdateSummary, vectorsPath: String) {
        if summary.rebuilt {
            print("Rebuilt the vectors \(vectorsPath): \(summary.reason ?? "requested").")
        }
        print("Vectors at token \(summary.token.map { "\($0)" } ?? "0"): \(Plural.count(summary.transactions, "transaction")), \(Plural.count(summary.indexed, "record")) embedded, \(Terminal.number(summary.deleted)) deleted in \(Terminal.duration(summary.seconds)).")
    }

    /// The warning on stderr for values the index could not read, with the first few; nil when there were none.
    static func unreadableWarning(_ summary: IndexUpdateSummary) -> String? {
        guard summary.unreadableValues > 0 else { return nil }
        let count = summary.unreadableValues
        let more = count > summary.unreadableExamples.count ? "; …" : ""
        return "warning: \(Plural.count(count, "value")) of number or date fields could not be read and \(count == 1 ? "is" : "are") left out of the index (\(summary.unreadableExamples.joined(separator: "; "))\(more)): those records are outside every range on the field and sort as records without a value until the store holds one it can read"
    }

    static func printSummary(_ summary: IndexUpdateSummary, indexPath: String) {
        if summary.rebuilt {
            print("Rebuilt \(indexPath): \(summary.reason ?? "requested").")
        }
        print("Index at token \(summary.token.map { "\($0)" } ?? "0"): \(Plural.count(summary.transactions, "transaction")), \(Plural.count(summary.changes, "change")) applied; \(Plural.count(summary.indexed, "document")) indexed, \(Terminal.number(summary.deleted)) deleted in \(Terminal.duration(summary.seconds)).")
    }

    struct Watch: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep the index up to date until SIGINT or SIGTERM, reacting to writes from any process.",
            discussion: """
            Logs one line per applied batch on stderr (one JSON line per batch on stdout with --json). When updates \
            start failing (a shard unavailable, a full disk) it says so in one line on stderr, and in one more when \
            they succeed again, the index caught up; it retries meanwhile, with a growing delay up to 5 s. On SIGINT or \
            SIGTERM it finishes the batch in progress and exits 0.

            EXAMPLES
              spotlite index watch
              spotlite index watch --json > index-updates.jsonl &
            """)

        @Flag(help: "Print one JSON line per applied batch.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            try environment.refuseReplica()
            let store = try environment.openStore(create: false)
            ReplicationServer.enableChangesets(forIndexAt: environment.configuration.indexPath)
            let indexer = try environment.makeIndexer(store: store)
            let updates = indexer.indexUpdates()
            let stop = SignalWaiter(signals: [SIGINT, SIGTERM])
            try await indexer.start()
            if !json { Terminal.log("Watching \(store.path) → \(indexer.indexPath) (Ctrl-C to stop)") }
            let printer = Task {
                // One line per commit, with that commit's own counts and time.
                for await update in updates {
                    let commit = update.commit
                    // A commit that only saved the position applied nothing: no line.
                    if commit.transactions == 0 && commit.indexed == 0 && commit.deleted == 0 && !commit.rebuilt { continue }
                    if json {
                        JSONOutput.print(commit.jsonObject)
                    } else {
                        if let warning = IndexCommand.unreadableWarning(commit) { Terminal.printError(warning) }
                        Terminal.log("\(ISO8601.string(from: Date())) token \(update.token.map { "\($0)" } ?? "0"): \(Plural.count(commit.transactions, "transaction")), \(Terminal.number(commit.indexed)) indexed, \(Terminal.number(commit.deleted)) deleted in \(Terminal.duration(commit.seconds))\(commit.rebuilt ? " (rebuilt: \(commit.reason ?? "requested"))" : "")")
                    }
                }
            }
            let health = Task { await IndexCommand.reportFailures(of: indexer) }
            // The vectors follow from their own position, in live mode too; one line per round that changed them.
            let embedding = try environment.makeSemanticIndex().map { try HistoryConsumerDriver(store: store, consumer: $0.embedder) }
            let vectorPrinter = embedding.map { driver in
                let rounds = driver.roundEvents()
                return Task {
                    for await event in rounds {
                        switch event {
                        case .processed(let round):
                            guard round.upserts + round.deletions > 0 || round.snapshot else { continue }
                            if json {
                                JSONOutput.print(["embeddings": ["token": round.position?.rawValue ?? 0, "indexed": round.upserts,
                                                                 "deleted": round.deletions, "rebuilt": round.snapshot,
                                                                 "reason": round.resynchronization.map { "\($0)" } as Any? ?? NSNull()] as [String: Any]])
                            } else {
                                Terminal.log("\(ISO8601.string(from: Date())) vectors at token \(round.position.map { "\($0)" } ?? "0"): \(Terminal.number(round.upserts)) embedded, \(Terminal.number(round.deletions)) deleted\(round.snapshot ? " (rebuilt: \(round.resynchronization.map { "\($0)" } ?? "requested"))" : "")")
                            }
                        case .failed(let error):
                            Terminal.printError("warning: \(ISO8601.string(from: Date())) the vectors cannot be updated: \(error); retrying")
                        }
                    }
                }
            }
            await embedding?.start()
            await stop.wait()
            await indexer.stop()
            await embedding?.stop()
            vectorPrinter?.cancel()
            printer.cancel()
            health.cancel()
            await health.value
            if let error = await indexer.lastError { Terminal.log("last error: \(error)") }
            if !json { Terminal.log("Stopped.") }
        }
    }

    /// How often `index watch` looks whether updates fail (a shard down, a full disk) or succeed again.
    static let failureCheckInterval: Duration = .milliseconds(250)

    /// Prints one line on stderr when the indexer's live updates start failing and one when they succeed again,
    /// whatever `--progress` says: the index lags the store in between, and a watcher that keeps silent hides it.
    static func reportFailures(of indexer: SpotliteIndexer) async {
        var failingSince: Date?
        // Once more after the cancellation: a recovery just before the stop is said too.
        var lastLook = false
        while !lastLook {
            lastLook = Task.isCancelled
            let error = await indexer.lastError
            if let error, failingSince == nil {
                failingSince = Date()
                Terminal.printError("warning: \(ISO8601.string(from: Date())) the index cannot be updated: \(error); retrying until it can (searches answer from the last commit meanwhile)")
            } else if error == nil, let since = failingSince {
                failingSince = nil
                Terminal.log("\(ISO8601.string(from: Date())) the index is updated again, after \(Terminal.duration(Date().timeIntervalSince(since))) of failures")
            }
            if !lastLook { try? await Task.sleep(for: failureCheckInterval) }
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the index's documents and token against the store, and every author's position.",
            discussion: """
            EXAMPLES
              spotlite index status
              spotlite index status --json
            """)

        @Flag(help: "Print the status as JSON.") var json = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let indexPath = environment.configuration.indexPath
            if let source = ReplicaFollower.replicaSource(at: indexPath),
               !FileManager.default.fileExists(atPath: environment.configuration.storePath) {
                throw CommandFailure(message: "the index at \(indexPath) is a read replica of \(source), and its status is measured against the store, which is on the master; run `spotlite index status` there, or `spotlite index replicate follow \(source) --into \(indexPath) --once` here for the replica's generation, documents and token")
            }
            let store = try environment.openStoreForReading()
            let status = try await environment.makeIndexer(store: store).status()
            let vectors = try IndexCommand.vectorStatus(environment.configuration)
            if json {
                var object = status.jsonObject
                if let vectors { object["embeddings"] = vectors.jsonObject }
                JSONOutput.print(object)
            } else {
                print(IndexCommand.render(status))
                if let vectors { print("\n" + vectors.rendered) }
            }
            // The status is shown in full; a shard that cannot be read still fails the command, for scripts and
            // monitoring, with the first such shard's one-line error.
            if let problem = status.shards.first(where: { !$0.isAvailable })?.problem {
                throw CommandFailure(message: EngineText.readable(problem.description), status: ExitStatus.failure)
            }
        }
    }

    /// What `index status` says of the vectors: read from the vector index alone, so that a missing model does
    /// not hide the status (it is named as the problem instead).
    struct VectorStatus {
        var path: String
        var model: String
        var modelPath: String
        var modelProblem: String?
        /// Nil when the vector index does not exist yet.
        var state: VectorIndexState?

        var jsonObject: [String: Any] {
            [
                "index": path, "model": model, "model_path": modelPath,
                "model_problem": modelProblem as Any? ?? NSNull(),
                "dimensions": state?.dimensions as Any? ?? NSNull(), "vectors": state?.vectors ?? 0,
                "token": state?.cursor?.token?.rawValue ?? 0, "records_cut": state?.truncated ?? 0,
                "made_by": state?.modelName as Any? ?? NSNull(),
            ]
        }

        var rendered: String {
            let rows: [(String, String)] = [
                ("Vectors", path + (state?.cursor == nil && (state?.vectors ?? 0) == 0 ? " (not built yet: run `spotlite index update`)" : "")),
                ("Model", model + " (" + modelPath + ")" + (modelProblem.map { ": " + $0 } ?? "")),
                ("Dimensions", state?.dimensions.map { "\($0)" } ?? "none yet"),
                ("Embedded", Plural.count(state?.vectors ?? 0, "record")),
                ("Token", state?.cursor?.token.map { "\($0)" } ?? "0"),
                ("Records cut", Terminal.number(state?.truncated ?? 0) + " (text longer than the model's token limit, embedded from its start)"),
            ]
            let width = rows.map(\.0.count).max() ?? 0
            return rows.map { Terminal.strong($0.0.padding(toLength: width, withPad: " ", startingAt: 0)) + "  " + $0.1 }
                .joined(separator: "\n")
        }
    }

    static func vectorStatus(_ configuration: SpotliteConfiguration) throws -> VectorStatus? {
        guard let settings = configuration.embeddings else { return nil }
        let path = settings.vectorIndexPath(besides: configuration.indexPath)
        let modelPath = settings.modelDirectory(indexPath: configuration.indexPath)
        var problem: String?
        if !FileManager.default.fileExists(atPath: (modelPath as NSString).appendingPathComponent("model.safetensors")) {
            problem = "missing; run `make deps`"
        }
        let state = FileManager.default.fileExists(atPath: path) ? try VectorIndex(path: path).state() : nil
        return VectorStatus(path: path, model: (settings.model as NSString).lastPathComponent, modelPath: modelPath,
                            modelProblem: problem, state: state)
    }

    static func render(_ status: IndexStatus) -> String {
        var rows: [(String, String)] = [
            ("Index", status.index + (status.exists ? "" : " (not built yet: run `spotlite index update`)")),
            ("Documents", Terminal.number(status.documents)),
            ("Token", status.token.map { "\($0)" }
                ?? (!status.exists ? "0 (no index yet)" : status.unavailableShards.isEmpty ? "0" : "unknown (a shard cannot be read; the indexer's position is what every shard committed)")),
            ("Store token", status.storeToken.map { "\($0)" } ?? "0"),
            ("Pending", Plural.count(status.pendingTransactions, "transaction")
                + (status.oldestPendingDate.map { " (lag: the oldest was committed \(Terminal.duration(max(0, Date().timeIntervalSince($0)))) ago)" } ?? "")),
            ("Oldest history", status.oldestHistoryToken.map { "token \($0)" } ?? "none"),
            ("Fingerprint", status.fingerprint.map { $0 + ($0 != status.configurationFingerprint ? " (the configuration asks for \(status.configurationFingerprint))" : "") }
                ?? "\(status.configurationFingerprint) (the configuration's; no index built yet)"),
            ("Last update", status.updatedAt.map { ISO8601.string(from: $0) } ?? "never"),
            ("Next update", status.rebuildReason.map { "rebuilds: \($0)" }
                ?? (status.pendingTransactions == 0 ? "nothing to apply" : "applies \(Plural.count(status.pendingTransactions, "transaction"))")),
        ]
        if !status.shards.isEmpty {
            let unavailable = status.unavailableShards.count
            rows.append(("Shards", "\(status.shards.count)" + (unavailable > 0 ? " (\(unavailable) unavailable)" : "")))
        }
        let width = rows.map(\.0.count).max() ?? 0
        var lines = rows.map { Terminal.strong($0.0.padding(toLength: width, withPad: " ", startingAt: 0)) + "  " + $0.1 }
        let nameWidth = status.shards.map(\.name.count).max() ?? 0
        for shard in status.shards {
            let name = "  " + shard.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0) + "  "
            if let problem = shard.problem {
                lines.append(name + "unavailable: " + EngineText.readable(problem.description))
            } else {
                lines.append(name + Plural.count(shard.documents ?? 0, "document") + ", token \(shard.token.map { "\($0)" } ?? "0")")
            }
        }
        lines.append("")
        if status.checkpoints.isEmpty {
            lines.append("No author positions recorded.")
        } else {
            rows = status.checkpoints.map { ($0.author, "\($0.token)") }
            let authorWidth = max(6, rows.map(\.0.count).max() ?? 0)
            let tokenWidth = max(5, rows.map(\.1.count).max() ?? 0)
            lines.append(Terminal.strong("Author".padding(toLength: authorWidth, withPad: " ", startingAt: 0) + "  " + "Token".padding(toLength: tokenWidth, withPad: " ", startingAt: 0) + "  Timestamp"))
            for position in status.checkpoints {
                lines.append(position.author.padding(toLength: authorWidth, withPad: " ", startingAt: 0) + "  "
                             + "\(position.token)".padding(toLength: tokenWidth, withPad: " ", startingAt: 0) + "  "
                             + ISO8601.string(from: position.timestamp))
            }
        }
        return lines.joined(separator: "\n")
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove the index and the indexer's position in the store (cleanup stops waiting for it).",
            discussion: """
            The store and its history are untouched; the next `spotlite index update` builds the index again. Shards \
            placed on servers (shards = ["tcp://HOST:PORT", …]) are emptied through their servers: the documents and \
            metadata the index wrote there are deleted, and the servers keep serving empty databases. Every shard must \
            be reachable (nothing is deleted otherwise), unless --local-only leaves their documents where they are.

            EXAMPLES
              spotlite index delete
              spotlite index delete --local-only
            """)

        @Flag(help: ArgumentHelp("With shards placed on servers or paths, remove only the local state (the shard map and the lock) and leave the documents in the shards; the next build rewrites them."))
        var localOnly = false
        @OptionGroup var options: GlobalOptions

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let store = try environment.openStore(create: false)
            let indexer = try environment.makeIndexer(store: store)
            let author = environment.configuration.indexer.author
            let hadIndex = FileManager.default.fileExists(atPath: indexer.indexPath)
            let hadPosition = try store.position(of: author) != nil
            let deletion: IndexDeletion
            do {
                deletion = try await indexer.deleteIndex(keepingPlacedShards: localOnly)
            } catch let error as SearchError {
                switch error {
                case let .shardUnavailable(shard, reason):
                    throw CommandFailure(message: "cannot empty shard \(shard) of the index (\(reason)); start its xapian-tcpsrv and run `spotlite index delete` again, or `spotlite index delete --local-only` to leave the documents on the servers (nothing was deleted)", status: ExitStatus.failure)
                case let .shardIdentityChanged(shard, expected, found):
                    throw CommandFailure(message: "shard \(shard) serves another database (UUID \(found), the index's shard map records \(expected)), which `spotlite index delete` will not empty; point its server at the shard's database and run it again, or `spotlite index delete --local-only` to leave that database alone (nothing was deleted)", status: ExitStatus.failure)
                default:
                    throw error
                }
            }
            let emptied = deletion.emptiedShards.isEmpty ? ""
                : ", its \(Plural.count(deletion.documentsDeleted, "document")) on \(Plural.count(deletion.emptiedShards.count, "shard")) (\(deletion.emptiedShards.joined(separator: ", ")))"
            switch (hadIndex, hadPosition) {
            case (true, true): print("Deleted the index at \(indexer.indexPath)\(emptied) and the position of \(author).")
            case (true, false): print("Deleted the index at \(indexer.indexPath)\(emptied) (\(author) had no position).")
            case (false, true): print("No index at \(indexer.indexPath); deleted the position of \(author).")
            case (false, false): print("No index at \(indexer.indexPath) and no position of \(author): nothing to delete.")
            }
            if localOnly && environment.configuration.shards.locations?.contains(where: \.isRemote) == true && hadIndex {
                print("The documents on the shard servers were left in place (--local-only); the next `spotlite index update` rewrites them.")
            }
        }
    }
}
