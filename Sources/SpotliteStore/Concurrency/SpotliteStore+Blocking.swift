import Dispatch

extension SpotliteStore {
    /// Runs blocking database work (a write may wait for another process's lock up to the busy timeout) on a
    /// dispatch thread and awaits it, so that async code never blocks one of Swift's cooperative threads.
    func performBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                continuation.resume(with: Result { try body() })
            }
        }
    }
}
