import Spotlite
#if canImport(Glibc)
import Glibc
#endif

/// The command line's own advice for the library's errors: the libraries say what to do in their own terms (call
/// `rebuild()`), and only the command line knows which command does it. Cases without a command to name keep the
/// library's words.
extension ProductError {
    /// The error as the command line prints it: by default the library's description.
    var commandLineDescription: String { description }
}

extension ReplicationError {
    var commandLineDescription: String {
        switch self {
        case let .unreachable(address, reason):
            return "cannot replicate from \(address): \(reason); check that `spotlite index replicate serve --port \(address.port)` runs on \(address.host) and that the port is open (the replica keeps its last copy)"
        case let .cannotServe(address, reason):
            return "cannot serve replicas on \(address): \(reason); choose another --port, or stop the program using it"
        case let .badLayout(address, reason):
            return "the replication server at \(address) does not serve a Spotlite index (\(reason)); check HOST:PORT, and that it runs `spotlite index replicate serve` of the same Spotlite version"
        default:
            return description
        }
    }
}

extension MigrationError {
    var commandLineDescription: String {
        switch self {
        case let .unrecognizedSchema(path, matching, known):
            if matching.isEmpty {
                return "the store \(path) records no model version and its tables match none of the known versions (\(known.joined(separator: ", "))); make its tables match one version, or name its version explicitly (`spotlite migrate run --assume-version NAME`)"
            }
            return "the store \(path) records no model version and its tables match several versions (\(matching.joined(separator: ", "))); name the one it is at (`spotlite migrate run --assume-version NAME`)"
        case let .migrationRequired(store, newest):
            let at = store.map { "at model version \($0.name)" } ?? "not yet versioned"
            return "the store is \(at) and needs migrating to \(newest.name), which a read-only store cannot do; run `spotlite migrate run` first"
        default:
            return description
        }
    }
}
