import Foundation
import SpotliteTooling

/// `spotlite history clean --json`, run again as soon as the previous run ends, for as long as the suite wants it.
/// Driven by ``poll(in:keepRunning:)`` from the suite's loop.
final class CleanerLoop {
    private(set) var runs = 0
    private(set) var deletedTransactions = 0
    private(set) var failures: [String] = []
    private var child: ChildProcess?

    var isRunning: Bool { child != nil }

    func poll(in workspace: Workspace, keepRunning: Bool) throws {
        if let running = child, running.poll() != nil {
            runs += 1
            let output = workspace.finish(running)
            if output.succeeded, let result = output.jsonObject {
                deletedTransactions += result["deleted_transactions"] as? Int ?? 0
            } else {
                failures.append("history clean failed (\(output.termination)): \(output.errorLine)")
            }
            child = nil
        }
        if child == nil && keepRunning {
            child = try workspace.startSpotlite(["history", "clean", "--json"], label: "clean")
        }
    }
}
