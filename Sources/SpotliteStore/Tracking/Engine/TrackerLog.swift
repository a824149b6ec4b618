import Logging

/// Logs through swift-log, filtered by the tracker's 0/1/2 level before any message is built.
struct TrackerLog: Sendable {
    let logger: Logger
    let level: TrackerLogLevel

    /// Failures and other news an operator should see (level 1 and up).
    func important(_ message: @autoclosure () -> String, failure: Bool = false) {
        guard level >= .important else { return }
        logger.log(level: failure ? .error : .notice, Logger.Message(stringLiteral: message()))
    }

    /// Step-by-step detail (level 2).
    func detailed(_ message: @autoclosure () -> String) {
        guard level >= .detailed else { return }
        logger.log(level: .info, Logger.Message(stringLiteral: message()))
    }
}
