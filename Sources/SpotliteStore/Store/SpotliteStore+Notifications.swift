extension SpotliteStore {
    /// Notifications of new history, from this handle's writes and, within a fraction of a second, from
    /// commits by any other handle or process (the `sqlite3` shell included), each carrying the new current
    /// token. Subscribe before writing to be sure to see the write. Watching other processes uses inotify on
    /// the store's folder: no polling. A writable handle also seals foreign changes when it sees them.
    public func changeNotifications() -> StoreChangeNotifications {
        hub.subscribe()
    }
}
