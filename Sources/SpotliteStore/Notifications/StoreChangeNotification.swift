import Foundation

/// A store's history moved on: a write through any ``SpotliteStore`` handle, or by another program, committed
/// a new transaction. The analogue of Core Data's remote change notification.
public struct StoreChangeNotification: Sendable, Hashable {
    /// The store's current token after the change.
    public var token: HistoryToken?
    /// The ``SpotliteStore/storeID`` of the store that changed.
    public var storeID: String
    /// The path of the store's SQLite file.
    public var path: String
    /// When this store handle noticed the change and sent the notification (the consumer may receive it
    /// later, when its task gets to run).
    public var date: Date

    /// A notification that the store `storeID` at `path` changed, up to `token`.
    public init(token: HistoryToken?, storeID: String, path: String, date: Date = Date()) {
        self.token = token
        self.storeID = storeID
        self.path = path
        self.date = date
    }
}
