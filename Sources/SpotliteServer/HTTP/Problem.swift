import Foundation
import HTTPTypes
import Hummingbird
import SpotliteJSON

/// An answer that is an error: `application/problem+json` (RFC 9457), whose `detail` is the sentence the command line
/// prints for the same mistake.
struct Problem: Error, Sendable {
    var status: HTTPResponse.Status
    var detail: String
    /// Extra response headers (`Allow` for 405, `WWW-Authenticate` for 401).
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ detail: String, headers: HTTPFields = [:]) {
        self.status = status
        self.detail = detail
        self.headers = headers
    }

    /// The problem's JSON document: `type` is `about:blank`, as the status code says all there is to say.
    var body: Data {
        JSONDocument.line(["type": "about:blank", "title": status.reasonPhrase, "status": status.code, "detail": detail] as [String: Any])
    }

    var response: Response {
        var headers = self.headers
        headers[.contentType] = "application/problem+json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// A path or a name from a request as an error shows it: at most 200 characters, control characters escaped.
    static func shown(_ path: String) -> String {
        let cut = path.count > 200 ? String(path.prefix(200)) + "…" : path
        return String(cut.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "?" : Character($0) })
    }
}
