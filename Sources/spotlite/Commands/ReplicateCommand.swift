import ArgumentParser
import Foundation
import Spotlite
import SpotliteJSON

extension IndexCommand {
    struct Replicate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep read-only copies of the index current on other machines (Xapian replication).",
            discussion: """
            On the machine that updates the index, `serve` runs Xapian's replication server for it. On each replica \
            machine, `follow` copies the live index into a directory and keeps it current, across rebuilds too; \
            `spotlite search --index DIR` searches the copy there, with the master's configuration file and no store. \
            Both need Xapian's tools (`apt-get install xapian-tools`).

            EXAMPLES
              spotlite index replicate serve --host 10.0.0.5 --port 7010
              spotlite index replicate follow 10.0.0.5:7010 --into /srv/spotlite-replica
              spotlite search --index /srv/spotlite-replica xapian
            """,
            subcommands: [Serve.self, Follow.self]
        )
    }
}

extension IndexCommand.Replicate {
    struct Serve: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Serve the index to read replicas until SIGINT or SIGTERM (runs xapian-replicate-server).",
            discussion: """
            Listens on HOST:PORT (default host 127.0.0.1: give the address replicas reach this machine on). \
            Replicas receive each commit's changes when the indexer keeps changesets: `spotlite index update`, \
            `rebuild` and `watch` do so for an index that has been served (restart a running `watch` after the \
            first `serve`); otherwise they receive full copies. A rebuild is published to replicas as soon as it \
            goes live.

            EXAMPLES
              spotlite index replicate serve --port 7010
              spotlite index replicate serve --host 0.0.0.0 --port 7010 --json
            """)

        @Option(help: ArgumentHelp("The address to listen on.", valueName: "host"))
        var host = "127.0.0.1"

        @Option(help: ArgumentHelp("The port to listen on (1 to 65535).", valueName: "port"))
        var port: Int

        @Flag(help: "Print one JSON line when serving starts, one per published generation, and one on stopping.")
        var json = false

        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard ReplicationAddress.ports.contains(port) else {
                throw ValidationError("--port must be from 1 to 65535 (got \(port))")
            }
        }

        func run() async throws {
            let environment = try CommandEnvironment(options: options)
            let address = ReplicationAddress(host: host, port: port)
            let server = ReplicationServer(indexPath: environment.configuration.indexPath, address: address)
            let stop = SignalWaiter(signals: [SIGINT, SIGTERM, SIGHUP])
            try server.start()
            defer { server.stop() }
            let published = server.published
            if json {
                JSONOutput.print(["event": "serving", "index": server.indexPath, "address": address.description,
                                  "generation": published?.generation ?? "", "shards": published?.shards ?? 0,
                                  "pid": Int(server.serverProcessID ?? 0)] as [String: Any])
            } else {
                Terminal.log("Serving \(server.indexPath) (\(published?.generation ?? "?"), \(Plural.count(published?.shards ?? 0, "shard"))) to replicas on \(address) (Ctrl-C to stop)")
            }
            // Publish each new generation as it goes live; stop on a signal, or fail when the server itself stops.
            let failure: ReplicationError? = await withTaskGroup(of: ReplicationError?.self) { group in
                group.addTask {
                    await stop.wait()
                    return nil
                }
                group.addTask {
                    while !Task.isCancelled {
                        if let exited = server.exited {
                            return .cannotServe(address, reason: "xapian-replicate-server stopped (\(exited.message.isEmpty ? "status \(exited.status)" : exited.message))")
                        }
                        do {
                            if let layout = try server.refresh() {
                                if json {
                                    JSONOutput.print(["event": "published", "generation": layout.generation, "shards": layout.shards] as [String: Any])
                                } else {
                                    Terminal.log("\(ISO8601.string(from: Date())) published \(layout.generation) (\(Plural.count(layout.shards, "shard")))")
                                }
                            }
                        } catch {
                            // A rebuild in the middle of switching, a full disk: say so and try again next time.
                            Terminal.log("\(ISO8601.string(from: Date())) cannot publish the index's layout yet: \((error as? any ProductError)?.commandLineDescription ?? "\(error)")")
                        }
                        try? await Task.sleep(for: .milliseconds(100))
                    }
                    return nil
                }
                let first = await group.next() ?? nil
                group.cancelAll()
                return first
            }
            server.stop()
            if let failure { throw failure }
            if json { JSONOutput.print(["event": "stopped"]) } else { Terminal.log("Stopped.") }
        }
    }

    struct Follow: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Keep a read-only copy of a served index current in a directory (runs xapian-replicate).",
            discussion: """
            Copies the master's live index into DIR, then checks for changes every --interval seconds until SIGINT \
            or SIGTERM (--once: one round, then exit). A rebuild on the master is copied beside the live copy and \
            switched to atomically once complete, so searches on the replica never see half an index. When the \
            master cannot be reached, the replica keeps its last copy: --once fails with the reason, and the \
            continuous mode says so once and keeps trying. Search the copy with `spotlite search --index DIR` and \
            the master's configuration file (no store needed on this machine).

            EXAMPLES
              spotlite index replicate follow 10.0.0.5:7010 --into /srv/spotlite-replica
              spotlite index replicate follow 127.0.0.1:7010 --into replica --once --json
            """)

        @Argument(help: ArgumentHelp("The replication server: HOST:PORT of `spotlite index replicate serve`.", valueName: "host:port"))
        var source: String

        @Option(help: ArgumentHelp("The replica directory (new, empty, or a replica of the same server).", valueName: "dir"))
        var into: String

        @Flag(help: "Copy once and exit (non-zero when the master cannot be reached).")
        var once = false

        @Option(parsing: .unconditional, help: ArgumentHelp("Seconds between checks for changes (0.05 to 3600).", valueName: "seconds"))
        var interval = 1.0

        @Option(parsing: .unconditional, help: ArgumentHelp("Seconds one copy may take before the round is abandoned (1 to 86400).", valueName: "seconds"))
        var timeout = 60.0

        @Flag(help: "Print one JSON line per round that changed the replica (with --once: the round, whatever it did).")
        var json = false

        @OptionGroup var options: GlobalOptions

        func validate() throws {
            guard (0.05...3600).contains(interval) else { throw ValidationError("--interval must be from 0.05 to 3600 seconds (got \(interval))") }
            guard (1...86400).contains(timeout) else { throw ValidationError("--timeout must be from 1 to 86400 seconds (got \(timeout))") }
        }

        func run() async throws {
            let address = try ReplicationAddress(parsing: source)
            let directory = SpotliteConfiguration.resolvePath(into, against: FileManager.default.currentDirectoryPath)
            let follower = try ReplicaFollower(source: address, replicaPath: directory, timeout: timeout)
            if once {
                let round = try follower.followOnce()
                if json { JSONOutput.print(round.jsonObject) } else { print(Self.describe(round)) }
                return
            }
            let stop = SignalWaiter(signals: [SIGINT, SIGTERM, SIGHUP])
            if !json { Terminal.log("Following \(address) into \(directory), every \(Terminal.duration(interval)) (Ctrl-C to stop)") }
            let interval = interval
            let json = json
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await stop.wait() }
                group.addTask {
                    var lastRound: ReplicaRound?
                    var failing: String?
                    while !Task.isCancelled {
                        do {
                            let round = try follower.followOnce()
                            if let failing {
                                Terminal.log("\(ISO8601.string(from: Date())) \(address) is back (after: \(failing))")
                            }
                            failing = nil
                            let changed = round.token != lastRound?.token || round.generation != lastRound?.generation
                                || round.documents != lastRound?.documents
                            if changed {
                                if json { JSONOutput.print(round.jsonObject) } else { Terminal.log("\(ISO8601.string(from: Date())) \(Self.describe(round))") }
                            }
                            lastRound = round
                        } catch {
                            // Said once per outage: a master restarting is not a reason to stop serving searches.
                            let message = (error as? any ProductError)?.commandLineDescription ?? "\(error)"
                            if failing != message {
                                Terminal.log("spotlite: \(message) (retrying every \(Terminal.duration(interval)))")
                            }
                            failing = message
                        }
                        try? await Task.sleep(for: .seconds(interval))
                    }
                }
                await group.next()
                group.cancelAll()
            }
            if !json { Terminal.log("Stopped.") }
        }

        static func describe(_ round: ReplicaRound) -> String {
            let switched = round.switched ? ", switched to it" : ""
            return "Replica \(round.replica) of \(round.source): \(round.generation) (\(Plural.count(round.shards, "shard"))\(switched)), token \(round.token.map { "\($0)" } ?? "0"), \(Plural.count(round.documents, "document")); \(Plural.count(round.fullCopies, "full copy", plural: "full copies")) in \(Terminal.duration(round.seconds))."
        }
    }
}
