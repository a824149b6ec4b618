/// The `[remote]` table: how long to wait for shards served by `xapian-tcpsrv` (`shards = ["tcp://HOST:PORT", …]`).
///
/// Both limits apply to every connection the indexer, searches and `index status` open: a server that is down fails
/// within ``connectTimeout``, one that stopped answering within ``timeout``, with one line naming its `HOST:PORT`.
public struct RemoteConfiguration: Sendable, Hashable {
    /// The default connect timeout: 5 seconds.
    public static let defaultConnectTimeout = Duration.seconds(5)
    /// The default operation timeout: 30 seconds.
    public static let defaultTimeout = Duration.seconds(30)
    /// The longest either limit may be: an hour (a longer wait looks like a hang).
    public static let maximumTimeout = Duration.seconds(3600)

    /// How long connecting to a shard's server may take (`connect_timeout`, 1 ms to 1 h).
    public var connectTimeout: Duration
    /// How long any one operation on a shard may take: a search's match, a batch's commit (`timeout`, 1 ms to 1 h).
    public var timeout: Duration

    /// Creates the limits; the defaults are those of an absent `[remote]` table.
    public init(connectTimeout: Duration = RemoteConfiguration.defaultConnectTimeout,
                timeout: Duration = RemoteConfiguration.defaultTimeout) {
        self.connectTimeout = connectTimeout
        self.timeout = timeout
    }
}
