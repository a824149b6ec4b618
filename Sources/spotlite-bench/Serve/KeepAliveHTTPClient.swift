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

    /// Reads one answer. Only what the figure needs is read from the head, byte by byte: the status code,
    /// `Content-Length` and the `Server-Timing` duration (as `wrk` reads little more), so that the client's own
    /// processor time per request stays small beside the server's.
    private func readAnswer() throws -> Answer {
        var headEnd: Int?
        var scanned = 0
        while headEnd == nil {
            headEnd = Self.headEnd(in: buffer, from: scanned)
            scanned = max(0, buffer.count - 3)
            if headEnd == nil, !fill() { throw closed() }
        }
        let head = buffer[0..<headEnd!]
        // `HTTP/1.1 200 OK`: three digits after the first space.
        guard let space = head.firstIndex(of: UInt8(ascii: " ")), space + 4 <= head.endIndex,
              let status = Self.integer(head[(space + 1)..<(space + 4)]) else {
            throw BenchError("the server answered something that is not HTTP: \(String(decoding: head.prefix(200), as: UTF8.self).debugDescription)")
        }
        var length: Int?
        var serverSearch: Double?
        var lineStart = (head.firstIndex(of: 10) ?? head.endIndex) + 1
        while lineStart < head.endIndex {
            let lineEnd = head[lineStart...].firstIndex(of: 13) ?? head.endIndex
            let line = head[lineStart..<lineEnd]
            if let value = Self.value(of: "content-length", in: line) {
                length = Self.integer(value)
            } else if let value = Self.value(of: "server-timing", in: line) {
                serverSearch = Self.duration(value).map { $0 / 1000 }
            }
            lineStart = lineEnd + 2
        }
        guard let length else {
            throw BenchError("the server's answer has no Content-Length: \(String(decoding: head.prefix(200), as: UTF8.self).debugDescription)")
        }
        let bodyStart = headEnd! + 4
        while buffer.count < bodyStart + length {
            if !fill() { throw closed() }
        }
        let body = Array(buffer[bodyStart..<(bodyStart + length)])
        buffer.removeFirst(bodyStart + length)
        return Answer(status: status, serverSearchSeconds: serverSearch, body: body)
    }

    /// Where the head ends (the index of its blank line's `\r\n\r\n`), looking from `start`.
    private static func headEnd(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        var index = start
        while index <= bytes.count - 4 {
            if bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    /// The value of header line `line` when its name is `name` (lower case), spaces around it dropped.
    private static func value(of name: StaticString, in line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        let count = name.utf8CodeUnitCount
        guard line.count > count, line[line.startIndex + count] == UInt8(ascii: ":") else { return nil }
        let matches = name.withUTF8Buffer { expected in
            (0..<count).allSatisfy { line[line.startIndex + $0] | 0x20 == expected[$0] | 0x20 }
        }
        guard matches else { return nil }
        var value = line[(line.startIndex + count + 1)...]
        while value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        while value.last == UInt8(ascii: " ") { value = value.dropLast() }
        return value
    }

    private static func integer(_ digits: ArraySlice<UInt8>) -> Int? {
        guard !digits.isEmpty else { return nil }
        var number = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            number = number * 10 + Int(digit - UInt8(ascii: "0"))
        }
        return number
    }

    /// The `dur=` milliseconds of a `Server-Timing` value (`search;dur=2.345`).
    private static func duration(_ value: ArraySlice<UInt8>) -> Double? {
        let key = Array("dur=".utf8)
        var index = value.startIndex
        while index + key.count <= value.endIndex {
            if Array(value[index..<(index + key.count)]) == key {
                let digits = value[(index + key.count)...].prefix { ($0 >= 48 && $0 <= 57) || $0 == UInt8(ascii: ".") }
                return Double(String(decoding: digits, as: UTF8.self))
            }
            index += 1
        }
        return nil
    }

    private func closed() -> BenchError {
        close(socket)
        socket = -1
        return BenchError("the server at 127.0.0.1:\(port) closed the connection or did not answer within 30 s")
    }
}
