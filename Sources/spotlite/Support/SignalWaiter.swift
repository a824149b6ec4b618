import Dispatch
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Waits for one of the given signals, delivered through Dispatch instead of a signal handler, so that the work in
/// progress finishes before the command returns.
///
/// Sendable so that a command can race the wait against its own work in a task group: every stored property is a
/// constant, and dispatch sources and async streams are safe to use from any thread.
final class SignalWaiter: @unchecked Sendable {
    private let sources: [DispatchSourceSignal]
    private let stream: AsyncStream<Int32>
    private let continuation: AsyncStream<Int32>.Continuation

    init(signals: [Int32]) {
        (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        let queue = DispatchQueue(label: "spotlite.signals")
        var sources: [DispatchSourceSignal] = []
        for number in signals {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            let continuation = self.continuation
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// Returns when a signal arrives.
    func wait() async {
        for await _ in stream { break }
        for source in sources { source.cancel() }
    }
}
