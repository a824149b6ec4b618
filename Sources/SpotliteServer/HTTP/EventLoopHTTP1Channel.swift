import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1.1 connections, each answered by a task that runs on the connection's event loop.
///
/// By default a connection's task runs on Swift's cooperative pool: every request is then handed from the event
/// loop that read it to a pool thread, and its answer back to the event loop to be written, two wake-ups of a
/// sleeping thread per request. Here the event loop runs the task itself, so a request is read, searched and
/// written by one thread. The event loops are one per core, and connections are spread over them, so searches
/// still run at once on every core.
struct EventLoopHTTP1Channel: ServerChildChannel {
    let channel: HTTP1Channel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<HTTP1Channel.Value> {
        self.channel.setup(channel: channel, logger: logger)
    }

    func handle(value: HTTP1Channel.Value, logger: Logger) async {
        if #available(macOS 15.0, *) {
            await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
                await channel.handle(value: value, logger: logger)
            }
        } else {
            await channel.handle(value: value, logger: logger)
        }
    }
}
