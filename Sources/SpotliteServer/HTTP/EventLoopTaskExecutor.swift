import NIOCore

/// Runs a task's jobs on one NIO event loop: a connection's task that prefers it reads its requests, answers them
/// and writes the answers on the thread that does the connection's I/O, with no hand-over to another thread on the
/// way in or out.
@available(macOS 15.0, *)
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        // On the loop's own thread this only queues the job for the loop's current round: no wake-up.
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
