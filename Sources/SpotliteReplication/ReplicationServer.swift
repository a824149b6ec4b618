import Foundation
import SpotliteSearch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Serves an index to read replicas with Xapian's `xapian-replicate-server`, and keeps the layout that replicas
/// follow (the live generation and its shards) current while indexers update and rebuild the index.
///
/// Xapian sends each replica the changesets it lacks when the index's writer keeps them (`XAPIAN_MAX_CHANGESETS`
/// in the writer's environment; ``enableChangesets(forIndexAt:)`` sets it for indexes that are served), and a full
/// copy otherwise. Thread-safe.
public final class ReplicationServer: Sendable {
    /// The index directory served.
    public let indexPath: String
    /// Where the server listens.
    public let address: ReplicationAddress
    /// How many changesets an indexer keeps for replicas when ``enableChangesets(forIndexAt:)`` turns them on.
    public static let changesetsKept = 20

    private let directory: IndexDirectory
    private let state = Mutex(State())

    private struct State: ~Copyable {
        var layoutDatabase: XapianWritableDatabase?
        var published: ReplicationLayout?
        var publishedStub: IndexDirectory.StubIdentity?
        var child: SessionProcess?
    }

    /// A server for the index at `indexPath`, to listen on `address` once started.
    /// - Parameters:
    ///   - indexPath: the index directory (the configuration's `index`).
    ///   - address: where to listen; replicas connect to it.
    public init(indexPath: String, address: ReplicationAddress) {
        self.indexPath = indexPath
        self.address = address
        self.directory = IndexDirectory(path: indexPath)
    }

    deinit {
        stop()
    }

    /// Turns Xapian's changesets on for the writers this process opens on the index at `indexPath`, when that index
    /// is served to replicas (it has a replication layout) and the environment does not say otherwise: replicas then
    /// receive each commit's changes rather than a full copy. Call it before the indexer opens the index.
    /// - Parameter indexPath: the index directory.
    public static func enableChangesets(forIndexAt indexPath: String) {
        guard getenv("XAPIAN_MAX_CHANGESETS") == nil,
              FileManager.default.fileExists(atPath: IndexDirectory(path: indexPath).replicationLayoutPath)
        else { return }
        setenv("XAPIAN_MAX_CHANGESETS", String(changesetsKept), 0)
    }

    /// The process id of the running `xapian-replicate-server`, or nil.
    public var serverProcessID: Int32? {
        state.withLock { $0.child.map { $0.isRunning ? $0.pid : nil } ?? nil }
    }

    /// The live generation and its shard count as last published.
    public var published: (generation: String, shards: Int)? {
        state.withLock { $0.published.map { ($0.generation, $0.shards.count) } }
    }

    /// Publishes the layout and starts `xapian-replicate-server`; returns once it accepts connections.
    /// - Parameter timeout: how long to wait for the server to accept connections, in seconds.
    /// - Throws: `SearchError.indexMissing` when there is no index, `ReplicationError` when the server cannot start.
    public func start(timeout: Double = 10) throws {
        guard directory.exists || directory.hasShardMap else { throw SearchError.indexMissing(path: indexPath) }
        // Xapian replicates databases in the index directory; placed shards live elsewhere (on their own servers).
        guard !directory.hasShardMap else {
            throw ReplicationError.cannotServe(address, reason: "the index's shards are placed at the locations of the configuration's `shards` list, not in \(indexPath); read replicas copy an index whose shards are local (a shard count)")
        }
        let tool = try ExternalTool("xapian-replicate-server")
        // Two checks that give plain answers before anything starts: a port in use, an address not on this host.
        try Self.checkCanListen(address)
        try refresh()
        // The server's SIGTERM handler signals its whole process group: in a session of its own, that group is
        // itself and its connection handlers, never this process or the shell that started it.
        let log = FileManager.default.temporaryDirectory
            .appendingPathComponent("spotlite-replicate-server-\(getpid())-\(UUID().uuidString).log").path
        let process: SessionProcess
        do {
            process = try SessionProcess(executable: tool.path, arguments: [
                "--interface", address.host, "--port", String(address.port), indexPath,
            ], outputPath: log)
        } catch let failure as SessionProcess.Failure {
            throw ReplicationError.toolMissing("xapian-replicate-server (\(failure.description))")
        }
        state.withLock { $0.child = process }
        let deadline = Date().addingTimeInterval(timeout)
        while !Self.accepts(address) {
            if let status = process.exitStatus {
                let message = process.lastMessage
                stop()
                throw ReplicationError.cannotServe(address, reason: "xapian-replicate-server exited (\(message.isEmpty ? "status \(status)" : message))")
            }
            if Date() > deadline {
                stop()
                throw ReplicationError.cannotServe(address, reason: "xapian-replicate-server did not accept connections within \(Int(timeout)) seconds")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Republishes the layout when the live generation changed (a rebuild switched it); one `stat` when it did not.
    /// Returns the new layout's generation and shard count when it published one.
    /// - Throws: when the layout database cannot be written.
    @discardableResult
    public func refresh() throws -> (generation: String, shards: Int)? {
        try state.withLock { state in
            let stub = directory.stubIdentity
            if stub != nil, stub == state.publishedStub { return nil }
            guard let layout = ReplicationLayout.current(of: directory) else { return nil }
            state.publishedStub = stub
            if layout == state.published { return nil }
            if state.layoutDatabase == nil {
                do {
                    state.layoutDatabase = try XapianWritableDatabase(path: directory.replicationLayoutPath)
                } catch SearchError.engine(let error, nil) where error.code == .databaseLock {
                    throw ReplicationError.cannotServe(address, reason: "the index at \(indexPath) is already served by another process")
                } catch SearchError.engine(let error, nil) {
                    throw SearchError.cannotWrite(path: directory.replicationLayoutPath, reason: error.description)
                }
            }
            try layout.publish(into: state.layoutDatabase!)
            state.published = layout
            return (layout.generation, layout.shards.count)
        }
    }

    /// The server's exit status when it stopped on its own, with its last message; nil while it runs.
    public var exited: (status: Int32, message: String)? {
        guard let child = state.withLock({ $0.child }), let status = child.exitStatus else { return nil }
        return (status, child.lastMessage)
    }

    /// Stops the server (SIGTERM, then SIGKILL after two seconds), closes the layout database and waits until the
    /// address is free again.
    public func stop() {
        let child = state.withLock { state -> SessionProcess? in
            defer {
                state.child = nil
                state.layoutDatabase = nil
            }
            return state.child
        }
        guard let child else { return }
        child.stop()
        child.removeOutput()
        // The session's leader can be reaped before the server has closed its listening socket: a server started
        // again at once on the same address would find the port in use.
        let deadline = ContinuousClock.now + .seconds(10)
        while Self.accepts(address) && ContinuousClock.now < deadline { usleep(2_000) }
    }

    /// Fails with a plain message when `address` cannot be listened on (in use, not an address of this host).
    static func checkCanListen(_ address: ReplicationAddress) throws {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(address.host, String(address.port), &hints, &list)
        guard resolved == 0, let first = list else {
            throw ReplicationError.cannotServe(address, reason: "cannot resolve \(address.host) (\(String(cString: gai_strerror(resolved))))")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        if bind(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) != 0 {
            let reason = errno == EADDRINUSE ? "the port is in use" : String(cString: strerror(errno))
            throw ReplicationError.cannotServe(address, reason: reason)
        }
    }

    /// Whether something accepts TCP connections at `address`.
    static func accepts(_ address: ReplicationAddress) -> Bool {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(address.host, String(address.port), &hints, &list) == 0, let first = list else { return false }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, first.pointee.ai_socktype, first.pointee.ai_protocol)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0
    }
}
