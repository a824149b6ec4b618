import Foundation
import Synchronization

/// The hooks, subscribers and consumers of one tracker. Registration happens on any thread while a delivery may
/// be running, so each delivery works on a snapshot taken when it starts.
final class TrackerRegistry: Sendable {
    struct Observer: Sendable {
        var id: UUID
        var entity: String
        var operation: HistoryChangeType
        var hook: ObserverHook
    }

    struct NamedMergeHook: Sendable {
        var id: UUID
        var hook: MergeHook
    }

    struct Subscriber: Sendable {
        var id: UUID
        var subscriber: any HistorySubscriber
    }

    struct Snapshot: Sendable {
        var observers: [Observer] = []
        var mergeHooks: [NamedMergeHook] = []
        var subscribers: [Subscriber] = []
        var consumers: [String] = []
    }

    private let state: Mutex<Snapshot>

    init(subscribers: [any HistorySubscriber]) {
        state = Mutex(Snapshot(subscribers: subscribers.map { Subscriber(id: UUID(), subscriber: $0) }))
    }

    var snapshot: Snapshot { state.withLock { $0 } }

    func addObserver(entity: String, operation: HistoryChangeType, hook: @escaping ObserverHook) -> UUID {
        let id = UUID()
        state.withLock { $0.observers.append(Observer(id: id, entity: entity, operation: operation, hook: hook)) }
        return id
    }

    func removeObserver(id: UUID) -> Bool {
        state.withLock { state in
            guard let index = state.observers.firstIndex(where: { $0.id == id }) else { return false }
            state.observers.remove(at: index)
            return true
        }
    }

    func removeObservers(entity: String, operation: HistoryChangeType) -> Int {
        state.withLock { state in
            let before = state.observers.count
            state.observers.removeAll { $0.entity == entity && $0.operation == operation }
            return before - state.observers.count
        }
    }

    func removeAllObservers() {
        state.withLock { $0.observers.removeAll() }
    }

    func appendMergeHook(_ hook: @escaping MergeHook) -> UUID {
        let id = UUID()
        state.withLock { $0.mergeHooks.append(NamedMergeHook(id: id, hook: hook)) }
        return id
    }

    func insertMergeHook(_ hook: @escaping MergeHook, before successor: UUID) throws(SpotliteStoreError) -> UUID {
        let id = UUID()
        let added = state.withLock { state -> Bool in
            let entry = NamedMergeHook(id: id, hook: hook)
            guard let index = state.mergeHooks.firstIndex(where: { $0.id == successor }) else { return false }
            state.mergeHooks.insert(entry, at: index)
            return true
        }
        guard added else { throw .unknownMergeHook(successor) }
        return id
    }

    func removeMergeHook(id: UUID) -> Bool {
        state.withLock { state in
            guard let index = state.mergeHooks.firstIndex(where: { $0.id == id }) else { return false }
            state.mergeHooks.remove(at: index)
            return true
        }
    }

    func removeAllMergeHooks() {
        state.withLock { $0.mergeHooks.removeAll() }
    }

    func addSubscriber(_ subscriber: any HistorySubscriber) -> UUID {
        let id = UUID()
        state.withLock { $0.subscribers.append(Subscriber(id: id, subscriber: subscriber)) }
        return id
    }

    func removeSubscriber(id: UUID) -> Bool {
        state.withLock { state in
            guard let index = state.subscribers.firstIndex(where: { $0.id == id }) else { return false }
            state.subscribers.remove(at: index)
            return true
        }
    }

    func addConsumer(_ name: String) {
        state.withLock { state in
            if !state.consumers.contains(name) { state.consumers.append(name) }
        }
    }
}
