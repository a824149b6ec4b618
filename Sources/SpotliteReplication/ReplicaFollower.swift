import Foundation
import SpotliteSearch
#if canImport(Glibc)
import Glibc
#endif

/// What one round of following a replication server did (`Codable` with its property names as keys; the command
/// line prints it as `spotlite index replicate follow --json`, in its own shape).
public struct ReplicaRound: Sendable, Equatable, Codable {
    /// The replication server (`HOST:PORT`).
    public var source: String
    /// The replica directory.
    public var replica: String
    /// The live generation copied (`gen-000003`).
    public var generation: String
    /// How many shards it has (1 for an index written before sharding).
    public var shards: Int
    /// Whether this round switched the replica to a new generation (the master rebuilt its index).
    public var switched: Bool
    /// Databases copied whole this round (a first copy, a new generation, or a master that keeps no changesets).
    public var fullCopies: Int
    /// Documents in the replica's live generation.
    public var documents: Int
    /// The history token every shard of the replica has reached (nil for an empty index).
    public var token: Int64?
    /// How long the round took.
    public var seconds: Double
}

/// Keeps a read-only copy of an index served by ``ReplicationServer`` current, with Xapian's `xapian-replicate`.
///
/// The replica directory has the same layout as the master's index, so `IndexSearcher` (and `spotlite search
/// --index DIR`) open it as they open any index:
/// ```
/// replica/
///   XAPIANDB             "auto gen-000003"      (switched atomically once a new generation is fully copied)
///   replica-of           "10.0.0.5:7010"
///   replication-layout/  a copy of the master's layout database
///   gen-000003/
///     XAPIANDB           "auto shard-0\nauto shard-1\n"
///     shard-0/           xapian-replicate's copy of the master's shard-0 (its own stub and database)
/// ```
/// Each round copies the layout, then every database it names, in parallel; searches keep reading the previous
/// generation until a new one is complete. Safe to use from one thread at a time.
public final class ReplicaFollower: Sendable {
    /// The replication server followed.
    public let source: ReplicationAddress
    /// The replica directory.
    public let replicaPath: String
    /// The longest one copy may take before it is abandoned (and the round fails).
    public let timeout: Double

    private let directory: IndexDirectory
    private let tool: ExternalTool

    /// A follower copying from `source` into `replicaPath`, which must be new, empty, or a replica of `source`.
    /// - Parameters:
    ///   - source: where `spotlite index replicate serve` (a ``ReplicationServer``) listens.
    ///   - replicaPath: the replica directory; created by the first successful copy.
    ///   - timeout: the longest one copy may take, in seconds.
    /// - Throws: `ReplicationError` when the directory holds something else or `xapian-replicate` is missing.
    public init(source: ReplicationAddress, replicaPath: String, timeout: Double = 60) throws {
        self.source = source
        self.replicaPath = replicaPath
        self.timeout = timeout
        self.directory = IndexDirectory(path: replicaPath)
        self.tool = try ExternalTool("xapian-replicate")
        directoryExisted = FileManager.default.fileExists(atPath: replicaPath)
        try checkDirectory()
    }

    /// Whether the replica directory existed (empty) before this follower: a failed first copy leaves it as it was.
    private let directoryExisted: Bool

    /// The replication server the index directory at `path` is a read replica of (`HOST:PORT`), or nil when it is
    /// an ordinary index (or none).
    /// - Parameter path: an index directory.
    public static func replicaSource(at path: String) -> String? {
        IndexDirectory(path: path).replicaSource
    }

    /// Refuses a directory that holds anything but a replica of `source` (or nothing).
    private func checkDirectory() throws {
        if let existing = directory.replicaSource {
            guard existing == source.description else {
                throw ReplicationError.replicaOfAnotherServer(path: directory.path, source: existing)
            }
            return
        }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
            let contents = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? ["?"]
            guard isDirectory.boolValue, contents.isEmpty else { throw ReplicationError.notAReplica(path: directory.path) }
        }
    }

    /// Copies what changed on the master since the last round; switches to the master's new generation once it
    /// is complete here.
    /// - Throws: `ReplicationError.unreachable` when the server cannot be reached or breaks off (the replica keeps
    ///   what it had), `.badLayout` when it does not serve a Spotlite index.
    public func followOnce() throws -> ReplicaRound {
        guard directory.replicaSource == nil else { return try copyRound() }
        // The first copy: mark the directory as this server's replica, and leave nothing behind if the copy fails.
        try checkDirectory()
        try directory.create()
        guard FileManager.default.createFile(atPath: directory.replicaMarkerPath, contents: Data((source.description + "\n").utf8)) else {
            throw SearchError.cannotWrite(path: directory.replicaMarkerPath, reason: String(cString: strerror(errno)))
        }
        do {
            return try copyRound()
        } catch {
            let files = FileManager.default
            if directoryExisted {
                for name in (try? files.contentsOfDirectory(atPath: directory.path)) ?? [] {
                    try? files.removeItem(atPath: directory.path + "/" + name)
                }
            } else {
                try? files.removeItem(atPath: directory.path)
            }
            throw error
        }
    }

    private func copyRound() throws -> ReplicaRound {
        let clock = ContinuousClock()
        let started = clock.now
        try replicate(ReplicationLayout.databaseName)
        let layout: ReplicationLayout
        do {
            let database = try XapianDatabase(path: directory.replicationLayoutPath)
            layout = try ReplicationLayout(reading: database)
        } catch {
            throw ReplicationError.badLayout(source, reason: "\(error)")
        }
        let generationPath = directory.path + "/" + layout.generation
        try FileManager.default.createDirectory(atPath: generationPath, withIntermediateDirectories: true)
        let stubsBefore = layout.databaseNames.map { stubText(of: directory.path + "/" + $0) }
        try replicate(layout.databaseNames)
        let stubsAfter = layout.databaseNames.map { stubText(of: directory.path + "/" + $0) }
        let fullCopies = zip(stubsBefore, stubsAfter).filter { $0 != $1 }.count
        if !layout.shards.isEmpty, ShardLayout.read(generationPath: generationPath)?.count != layout.shards.count {
            try ShardLayout(generationPath: generationPath, count: layout.shards.count).writeStub()
        }
        let live = directory.liveGeneration.map { (directory.generationPath($0) as NSString).lastPathComponent }
        let switched = live != layout.generation
        if switched || fullCopies > 0 {
            // A whole copy lands in a new directory behind the shard's own stub, which searchers that keep a
            // database open do not re-read: a new top stub (a new file) tells them to open the index afresh.
            try StubFile.write([layout.generation], to: directory.stubPath)
        }
        if switched {
            for number in directory.generations() where directory.generationPath(number) != generationPath {
                try? FileManager.default.removeItem(atPath: directory.generationPath(number))
            }
        }
        let (documents, token) = try summary(generationPath: generationPath, layout: layout)
        let elapsed = clock.now - started
        return ReplicaRound(source: source.description, replica: directory.path, generation: layout.generation,
                            shards: max(1, layout.shards.count), switched: switched, fullCopies: fullCopies,
                            documents: documents, token: token,
                            seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    /// Runs `xapian-replicate` once for each database, in parallel.
    private func replicate(_ names: String...) throws { try replicate(names) }

    private func replicate(_ names: [String]) throws {
        var runs: [(String, ExternalTool.Run)] = []
        var failure: Error?
        for name in names {
            let arguments = ["--host", source.host, "--port", String(source.port), "--master", name, "--one-shot",
                             "--reader-time", "0", "--timeout", String(Int(timeout.rounded(.up))), "--quiet",
                             directory.path + "/" + name]
            do {
                runs.append((name, try tool.start(arguments, timeout: timeout)))
            } catch {
                failure = ReplicationError.unreachable(source, reason: "cannot start \(tool.path) (\(error.localizedDescription))")
                break
            }
        }
        for (name, run) in runs {
            let outcome = run.finish()
            guard failure == nil, outcome.status != 0 || outcome.timedOut else { continue }
            if outcome.timedOut {
                failure = ReplicationError.unreachable(source, reason: "copying \(name) took over \(Int(timeout)) seconds")
                continue
            }
            var message = outcome.lastLine
            // "/usr/bin/xapian-replicate: NetworkError: …": the program's name says nothing the error does not.
            if let range = message.range(of: "xapian-replicate: ") { message = String(message[range.upperBound...]) }
            if message.isEmpty { message = "xapian-replicate exited with status \(outcome.status)" }
            // The server closes the connection when it has no such database (Xapian sends no reason).
            if message.hasSuffix("Connection closed unexpectedly") {
                message = "the server has no database \(name) or closed the connection"
            }
            failure = ReplicationError.unreachable(source, reason: message)
        }
        if let failure { throw failure }
    }

    private func stubText(of databasePath: String) -> String? {
        try? String(contentsOfFile: databasePath + "/" + IndexDirectory.stubName, encoding: .utf8)
    }

    private func summary(generationPath: String, layout: ReplicationLayout) throws -> (Int, Int64?) {
        do {
            let database = try XapianDatabase(path: generationPath)
            let documents = try database.documentCount()
            let token: Int64?
            if layout.shards.isEmpty {
                token = try IndexMetadata(reading: database.metadata(forKey:)).token?.rawValue
            } else {
                token = try ShardLayout(generationPath: generationPath, count: layout.shards.count).committedToken()?.rawValue
            }
            return (documents, token)
        } catch SearchError.engine(let error, nil) {
            throw SearchError.indexCorrupt(path: directory.path, reason: error.description)
        }
    }
}
