import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One HTTP/1.1 connection to 127.0.0.1, kept open from request to request (as `wrk` and browsers do), blocking:
/// what the serve figure times a request with, so that the time is the server's and the loopback's, not a client
/// library's. Reads answers with a `Content-Length` (every answer of `/search` has one).
///
/// Used from one thread at a time.
final class KeepAliveHTTPClient {
    /// One answer: its status, the `Server-Timing` search duration when there is one (seconds), and its body.
    struct Answer {
        var status: Int
        var serverSearchSeconds: Double?
        var body: [UInt8]
    }

    let port: Int
    private var socket: Int32 = -1
    private var buffer: [UInt8] = []
    private var scratch = [UInt8](repeating: 0, count: 65536)

    init(port: Int) {
        self.port = port
    }

    deinit {
        if socket >= 0 { close(socket) }
    }

    /// `GET path`, on the open connection (opened on first use, and again when the server closed it).
    func get(_ path: String) throws -> Answer {
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n".utf8)
        if socket < 0 { try connect() }
        if !send(request) {
            // The server closed an idle connection: one new one.
            try connect()
            guard send(request) else { throw BenchError("cannot send a request to 127.0.0.1:\(port): \(String(cString: strerror(errno)))") }
        }
        return try readAnswer()
    }

    private func connect() throws {
        if socket >= 0 { close(socket) }
        buffer.removeAll(keepingCapacity: true)
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw BenchError("socket: \(String(cString: strerror(errno)))") }
        var time = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = String(cString: strerror(errno))
            close(socket)
            socket = -1
            throw BenchError("cannot connect to the server at 127.0.0.1:\(port): \(reason)")
        }
    }

    private func send(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let written = Glibc.send(socket, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                sent += written
            }
            return true
        }
    }

    /// Reads more bytes into `buffer`; false when the server closed the connection or a read timed out.
    private func fill() -> Bool {
        let count = recv(socket, &scratch, scratch.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: scratch[0..<count])
        return true
    }

    private func readAnswer() throws -> Answer {
        let separator: [UInt8] = [13, 10, 13, 10]
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find(separator, in: buffer)
            if headEnd == nil, !fill() { throw closed() }
        }
        let head = String(decoding: buffer[0..<headEnd!], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw BenchError("the server answered something that is not HTTP: \(head.prefix(200).debugDescription)")
        }
        var length: Int?
        var serverSearch: Double?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "content-length" { length = Int(value) }
            if name == "server-timing", let range = value.range(of: "dur=") {
                serverSearch = Double(value[range.upperBound...].prefix { $0.isNumber || $0 == "." }).map { $0 / 1000 }
            }
        }
        guard let length else { throw BenchError("the server's answer has no Content-Length: \(head.prefix(200).debugDescription)") }
        let bodyStart = headEnd! + separator.count
        while buffer.count < bodyStart + length {
            if !fill() { throw closed() }
        }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return Answer(status: status, serverSearchSeconds: serverSearch, body: body)
    }

    private func closed() -> BenchError {
        close(socket)
        socket = -1
        return BenchError("the server at 127.0.0.1:\(port) closed the connection or did not answer within 30 s")
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        var index = 0
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] && haystack[index + 1] == needle[1] && haystack[index + 2] == needle[2]
                && haystack[index + 3] == needle[3] {
                return index
            }
            index += 1
        }
        return nil
    }
}
