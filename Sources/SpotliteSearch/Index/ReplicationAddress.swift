import Foundation

/// Where a replication server listens: `HOST:PORT`, with `[ADDRESS]:PORT` for IPv6 addresses.
public struct ReplicationAddress: Sendable, Hashable, CustomStringConvertible {
    /// The host name or address (IPv6 addresses without brackets).
    public let host: String
    /// The TCP port.
    public let port: Int

    /// An address from its parts, unchecked.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST:PORT` (or `[IPV6]:PORT`).
    /// - Parameter text: the address as a user wrote it.
    /// - Throws: `ReplicationError.badAddress` naming what is wrong.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let hostPart: Substring
        let portPart: Substring
        if trimmed.hasPrefix("["), let close = trimmed.firstIndex(of: "]") {
            hostPart = trimmed[trimmed.index(after: trimmed.startIndex)..<close]
            let rest = trimmed[trimmed.index(after: close)...]
            guard rest.hasPrefix(":") else { throw ReplicationError.badAddress(text, reason: "no port after the address") }
            portPart = rest.dropFirst()
        } else {
            guard let colon = trimmed.lastIndex(of: ":") else {
                throw ReplicationError.badAddress(text, reason: "no port")
            }
            hostPart = trimmed[..<colon]
            portPart = trimmed[trimmed.index(after: colon)...]
            if hostPart.contains(":") {
                throw ReplicationError.badAddress(text, reason: "write an IPv6 address in brackets, e.g. [::1]:7010")
            }
        }
        guard !hostPart.isEmpty else { throw ReplicationError.badAddress(text, reason: "no host") }
        guard hostPart.allSatisfy({ !$0.isWhitespace && $0 != "/" }) else {
            throw ReplicationError.badAddress(text, reason: "\"\(hostPart)\" is not a host name or address")
        }
        guard let port = Int(portPart), Self.ports.contains(port) else {
            throw ReplicationError.badAddress(text, reason: "the port must be a number from 1 to 65535")
        }
        self.init(host: String(hostPart), port: port)
    }

    /// The valid port numbers.
    public static let ports = 1...65535

    /// `HOST:PORT`, with an IPv6 address in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
