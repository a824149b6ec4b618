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

extension StoreRecoveryVocabulary {
    /// The command line's: the `spotlite` commands and options that do it.
    static let commandLine = StoreRecoveryVocabulary(
        assumeVersion: "`spotlite migrate run --assume-version NAME`", migrate: "run `spotlite migrate run` first",
        importAuthor: "--author importer")
}

extension SpotliteStoreError {
    /// The library's problem, with the way out as a command where a command does it.
    var commandLineDescription: String { description(using: .commandLine) }
}
