import Foundation
import SpotliteReplication
import SpotliteSearch
#if canImport(Glibc)
import Glibc
#endif

extension ReplicationServer {
    /// Starts `xapian-replicate-server` (``ReplicationServer/start(timeout:)``) with its session listed in
    /// ``SpawnedProcesses``, so that a harness interrupted by SIGINT or SIGTERM (``HarnessInterruption``) stops it
    /// with the rest; returns the session's id, for ``stopListed(session:)`` and for naming it.
    /// - Parameter timeout: how long to wait for the server to accept connections, in seconds.
    /// - Throws: what ``ReplicationServer/start(timeout:)`` throws; `SpawnedProcesses.Refusal` once the harness is
    ///   stopping, or when the server ended as soon as it listened.
    package func startListed(timeout: Double = 10) throws -> pid_t {
        try SpawnedProcesses.start(wholeGroup: true) {
            // Under the list's lock, so that the session is listed before anything could reap it.
            try start(timeout: timeout)
            guard let session = serverProcessID else {
                stop()
                throw SpawnedProcesses.Refusal(description: "xapian-replicate-server on \(address) ended as soon as it listened")
            }
            return (session, session)
        }
    }

    /// Stops the server started by ``startListed(timeout:)`` and takes its session off the list (nothing to do when an
    /// interruption stopped it already).
    package func stopListed(session: pid_t) {
        SpawnedProcesses.reap(session) {
            stop()
            return true
        }
    }
}
