import Foundation

/// Errors of read replication (serving an index to replicas, following one). Each names the problem and the way out.
public enum ReplicationError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// `HOST:PORT` that cannot be parsed.
    case badAddress(String, reason: String)
    /// A Xapian replication program is not installed.
    case toolMissing(String)
    /// The replication server could not be reached, or broke off.
    case unreachable(ReplicationAddress, reason: String)
    /// The replication server could not be started.
    case cannotServe(ReplicationAddress, reason: String)
    /// The server answered, but what it serves is not a Spotlite index (or not one this version reads).
    case badLayout(ReplicationAddress, reason: String)
    /// `follow --into DIR` where DIR holds something that is not a replica (a master index, other files).
    case notAReplica(path: String)
    /// `follow --into DIR` where DIR is a replica of another server.
    case replicaOfAnotherServer(path: String, source: String)
    /// An update of an index that is a read replica.
    case replicaIsReadOnly(path: String, source: String)
    /// A search on a replica with a configuration that differs from the one its index was built with.
    case configurationMismatch(path: String, source: String)

    /// The problem and what to do, in one line.
    public var description: String {
        switch self {
        case let .badAddress(text, reason):
            return "bad replication address \"\(text)\": \(reason); write HOST:PORT, e.g. 10.0.0.5:7010"
        case let .toolMissing(name):
            return "\(name) is not installed; install Xapian's tools (`apt-get install xapian-tools`, or `make deps`)"
        case let .unreachable(address, reason):
            return "cannot replicate from \(address): \(reason); check that a replication server (ReplicationServer) listens on port \(address.port) of \(address.host) and that the port is open (the replica keeps its last copy)"
        case let .cannotServe(address, reason):
            return "cannot serve replicas on \(address): \(reason); choose another port, or stop the program using it"
        case let .badLayout(address, reason):
            return "the replication server at \(address) does not serve a Spotlite index (\(reason)); check HOST:PORT, and that the server runs the same Spotlite version"
        case let .notAReplica(path):
            return "\(path) holds files that are not a Spotlite replica; choose an empty or new directory for the replica"
        case let .replicaOfAnotherServer(path, source):
            return "\(path) is a replica of \(source); follow \(source), or choose another directory for this server's replica"
        case let .replicaIsReadOnly(path, source):
            return "the index at \(path) is a read replica of \(source); update the index on the master, and the replica follows it"
        case let .configurationMismatch(path, source):
            return "the configuration does not describe the index in the replica \(path) (it was built with another one); copy the configuration file of the master (\(source)) to this host"
        }
    }

    /// The same as ``description``.
    public var errorDescription: String? { description }
}
