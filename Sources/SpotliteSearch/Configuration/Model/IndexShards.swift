/// The top-level `shards` key: how many Xapian databases the index is split into, or where they are.
///
/// Documents are spread over the shards by a stable hash of their entity and key; the indexer writes every shard on
/// a thread of its own, and searches open the shards as one database, so ranking is the same as with one.
public enum IndexShards: Sendable, Hashable {
    /// Absent from the file: keep the existing index's count; a new index gets one shard per core, up to four.
    case automatic
    /// This many local shards (1 to ``maximumCount``) inside the index directory; an index with another count is
    /// rebuilt.
    case count(Int)
    /// One shard at each location, in this order (1 to ``maximumCount`` of them): a local database directory or a
    /// `xapian-tcpsrv --writable` server. The index directory then holds only the lock and the shard map.
    case locations([ShardLocation])

    /// The most shards an index may have.
    public static let maximumCount = 64

    /// The configured count of local shards, or nil for ``automatic`` and ``locations(_:)``.
    public var count: Int? {
        if case let .count(count) = self { return count }
        return nil
    }

    /// The configured shard locations, or nil when the shards are local to the index directory.
    public var locations: [ShardLocation]? {
        if case let .locations(locations) = self { return locations }
        return nil
    }
}

/// Where one shard of an index lives: `shards = ["tcp://10.0.0.5:7001", "/srv/shard-1"]`.
public enum ShardLocation: Sendable, Hashable, CustomStringConvertible {
    /// A Xapian database directory on this machine, written and searched directly.
    case path(String)
    /// A database served by `xapian-tcpsrv --writable --port PORT` on HOST (a name, an IPv4 address, or an IPv6
    /// address in brackets).
    case remote(host: String, port: Int)

    /// The scheme of remote locations.
    public static let tcpScheme = "tcp://"

    /// Reads a location as written in the configuration: `tcp://HOST:PORT` or a path. Returns what is wrong, as the
    /// end of an "expected …; found …" message, when the text is neither.
    public static func parse(_ text: String) -> Result<ShardLocation, ShardLocationError> {
        guard text.contains("://") else {
            return text.isEmpty ? .failure(ShardLocationError("an empty location")) : .success(.path(text))
        }
        guard text.hasPrefix(tcpScheme) else {
            return .failure(ShardLocationError("\"\(text)\", whose scheme is not tcp://"))
        }
        var rest = Substring(text.dropFirst(tcpScheme.count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        let host: Substring, portText: Substring?
        if rest.hasPrefix("[") {
            // [IPv6]:PORT
            guard let close = rest.firstIndex(of: "]") else {
                return .failure(ShardLocationError("\"\(text)\", whose IPv6 address lacks its closing bracket"))
            }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            portText = after.hasPrefix(":") ? after.dropFirst() : (after.isEmpty ? nil : after)
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            portText = rest[rest.index(after: colon)...]
        } else {
            host = rest
            portText = nil
        }
        guard !host.isEmpty else { return .failure(ShardLocationError("\"\(text)\", which has no host")) }
        guard let portText, !portText.isEmpty else {
            return .failure(ShardLocationError("\"\(text)\", which has no port (write tcp://HOST:PORT)"))
        }
        if let slash = portText.firstIndex(of: "/"), portText[..<slash].allSatisfy({ $0.isASCII && $0.isNumber }) {
            return .failure(ShardLocationError("\"\(text)\", which has a path after the port (a server serves one database: write tcp://HOST:PORT)"))
        }
        guard portText.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(portText) else {
            return .failure(ShardLocationError("\"\(text)\", whose port \"\(portText)\" is not a number"))
        }
        return .success(.remote(host: String(host), port: port))
    }

    /// The location as the configuration writes it.
    public var description: String {
        switch self {
        case let .path(path): path
        case let .remote(host, port): Self.tcpScheme + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        }
    }

    /// `HOST:PORT` for a remote location, the path otherwise: how errors name the shard.
    public var name: String {
        switch self {
        case let .path(path): path
        case let .remote(host, port): (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
        }
    }

    /// What two locations naming the same shard share: host names compared without case, paths with `.`, `..` and
    /// repeated slashes removed (relative paths stay apart from absolute ones).
    var identity: String {
        switch self {
        case let .path(path):
            path.hasPrefix("/") ? SpotliteConfiguration.resolvePath(path, against: "/")
                : "./" + SpotliteConfiguration.resolvePath(path, against: "/")
        case let .remote(host, port): "tcp://" + host.lowercased() + ":\(port)"
        }
    }

    /// Whether `host` is a host name (letters, digits, `-`, `_`, dots between labels) or an address (IPv4, or IPv6
    /// without its brackets, with an optional `%zone`).
    static func isHost(_ host: String) -> Bool {
        guard !host.isEmpty, host.unicodeScalars.allSatisfy(\.isASCII) else { return false }
        if host.contains(":") {
            let (address, zone) = host.firstIndex(of: "%").map { (host[..<$0], host[host.index(after: $0)...]) } ?? (Substring(host), "")
            return address.allSatisfy { $0.isHexDigit || $0 == ":" || $0 == "." }
                && zone.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." }
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        } && host.count <= 253
    }

    /// True for a `tcp://` location.
    public var isRemote: Bool {
        if case .remote = self { return true }
        return false
    }
}

/// Why a `shards` entry is not a location: the text an error message shows after "found".
public struct ShardLocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was found, e.g. `"tcp://10.0.0.5", which has no port (write tcp://HOST:PORT)`.
    public let description: String

    /// An error saying `description` about the location.
    public init(_ description: String) {
        self.description = description
    }
}
