import NIOCore
import NIOHTTPTypes

/// Closes a connection whose request does not arrive in time: its head within `headTimeout` of the connection
/// opening or of the previous answer ending, its body within `bodyTimeout` of its head. Hummingbird's idle timeout
/// restarts at every byte read, so a client sending one byte a second would otherwise hold the connection forever.
final class RequestDeadlineHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let headTimeout: TimeAmount
    private let bodyTimeout: TimeAmount
    private var deadline: Scheduled<Void>?

    init(headTimeout: TimeAmount, bodyTimeout: TimeAmount) {
        self.headTimeout = headTimeout
        self.bodyTimeout = bodyTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { arm(context, headTimeout) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        arm(context, headTimeout)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: arm(context, bodyTimeout)
        case .body: break
        case .end:
            // The answer may take as long as it takes (a stream of events): the next head's deadline starts after it.
            deadline?.cancel()
            deadline = nil
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { arm(context, headTimeout) }
        context.write(data, promise: promise)
    }

    private func arm(_ context: ChannelHandlerContext, _ timeout: TimeAmount) {
        deadline?.cancel()
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: timeout) { bound.value.close(promise: nil) }
    }
}
