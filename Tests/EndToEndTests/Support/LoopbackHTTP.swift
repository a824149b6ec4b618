import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 client over a socket to 127.0.0.1, for tests that must send exactly the bytes they mean (a path
/// with `..`, a body over the limit, a request one byte at a time) and read exactly what comes back.
struct LoopbackHTTP {
    struct Answer {
        var status: Int
        /// Header names in lower case.
        var headers: [String: String]
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }

        func json() throws -> [String: Any] {
            guard let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
                throw Failure(description: "not a JSON object: \(text.prefix(300).debugDescription)")
            }
            return object
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    let port: Int

    /// Connects, with `timeout` seconds for every read and write.
    func connect(timeout: Double = 30) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket: \(errno)") }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
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
            close(socket)
            throw Failure(description: "connect to 127.0.0.1:\(port): errno \(errno)")
        }
        return socket
    }

    static func send(_ socket: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let written = Glibc.send(socket, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if written <= 0 { return false }
                sent += written
            }
            return true
        }
    }

    /// Reads until the peer closes (or a read times out: then what arrived).
    static func readAll(_ socket: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// Reads one answer: to the end of its `Content-Length` or its last chunk, or until the peer closes (some peers
    /// keep the connection open whatever `Connection: close` says).
    static func readAnswer(_ socket: Int32) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        func complete() -> Bool {
            guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return false }
            let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).lowercased()
            if let line = head.components(separatedBy: "\r\n").first(where: { $0.hasPrefix("content-length:") }),
               let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) {
                return data.count - end.upperBound >= length
            }
            if head.contains("transfer-encoding: chunked") {
                return data[end.upperBound...].range(of: Data("0\r\n\r\n".utf8)) != nil
            }
            return false
        }
        while !complete() {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            data.append(contentsOf: buffer[0..<count])
        }
        return data
    }

    /// Sends `raw` as it is and reads the answer.
    func exchange(_ raw: Data) throws -> Answer {
        let socket = try connect()
        defer { close(socket) }
        _ = Self.send(socket, raw)
        return try Self.parse(Self.readAnswer(socket))
    }

    /// A request with `Connection: close`.
    func request(_ method: String, _ path: String, headers: [String: String] = [:], body: Data? = nil) throws -> Answer {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        return try exchange(Data(head.utf8) + (body ?? Data()))
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> Answer {
        try request("GET", path, headers: headers)
    }

    func post(_ path: String, json: String, headers: [String: String] = [:]) throws -> Answer {
        try request("POST", path, headers: headers.merging(["Content-Type": "application/json"]) { $1 }, body: Data(json.utf8))
    }

    /// The status line, headers and body of one answer (a chunked body is joined).
    static func parse(_ data: Data) throws -> Answer {
        guard let end = data.range(of: Data("\r\n\r\n".utf8)) else {
            throw Failure(description: "no complete answer: \(String(decoding: data.prefix(300), as: UTF8.self).debugDescription)")
        }
        let head = String(decoding: data[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Data(data[end.upperBound...])
        if headers["transfer-encoding"] == "chunked" { body = unchunked(body) }
        return Answer(status: status, headers: headers, body: body)
    }

    static func unchunked(_ data: Data) -> Data {
        var result = Data()
        var rest = data[...]
        while let lineEnd = rest.range(of: Data("\r\n".utf8)) {
            let size = Int(String(decoding: rest[..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            let start = lineEnd.upperBound
            guard rest.distance(from: start, to: rest.endIndex) >= size else { break }
            let chunkEnd = rest.index(start, offsetBy: size)
            result.append(rest[start..<chunkEnd])
            rest = rest[(rest.index(chunkEnd, offsetBy: 2, limitedBy: rest.endIndex) ?? rest.endIndex)...]
        }
        return result
    }
}
