import Foundation
import GRDB
import Spotlite
import SpotliteJSON

/// Writes history transactions as JSON to stdout as they are read, page by page, instead of building one large
/// document: the memory used stays that of a page, and the encoding is plain byte appends (JSONSerialization of
/// nested dictionaries costs tens of times more on Linux). Keys are sorted, as in every other `--json` output.
struct HistoryJSONWriter {
    enum Format { case array, lines }

    let format: Format
    private var buffer: [UInt8] = []
    private var written = 0

    init(format: Format) {
        self.format = format
        buffer.reserveCapacity(1 << 17)
        if format == .array { buffer.append(UInt8(ascii: "[")) }
    }

    mutating func write(_ transaction: HistoryTransaction) {
        if format == .array && written > 0 { buffer.append(UInt8(ascii: ",")) }
        written += 1
        append(#"{"author":"#)
        appendOptionalString(transaction.author)
        append(#","changes":["#)
        for (index, change) in transaction.changes.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            append(#"{"columns":["#)
            for (columnIndex, column) in (change.updatedColumns ?? []).enumerated() {
                if columnIndex > 0 { buffer.append(UInt8(ascii: ",")) }
                appendString(column)
            }
            append(#"],"entity":"#)
            appendString(change.entity)
            append(#","key":"#)
            appendValue(change.key)
            append(#","tombstone":"#)
            if let tombstone = change.tombstone {
                buffer.append(UInt8(ascii: "{"))
                for (nameIndex, name) in tombstone.keys.sorted().enumerated() {
                    if nameIndex > 0 { buffer.append(UInt8(ascii: ",")) }
                    appendString(name)
                    buffer.append(UInt8(ascii: ":"))
                    appendValue(tombstone[name]!)
                }
                buffer.append(UInt8(ascii: "}"))
            } else {
                append("null")
            }
            append(#","type":"#)
            appendString(change.changeType.description)
            buffer.append(UInt8(ascii: "}"))
        }
        append(#"],"context":"#)
        appendOptionalString(transaction.contextName)
        append(#","timestamp":"#)
        appendString(ISO8601.string(from: transaction.timestamp))
        append(#","token":"#)
        append(String(transaction.token.rawValue))
        buffer.append(UInt8(ascii: "}"))
        if format == .lines { buffer.append(UInt8(ascii: "\n")) }
        if buffer.count >= 1 << 16 { flush() }
    }

    /// Ends the document (the array's closing bracket) and writes what is buffered.
    mutating func finish() {
        if format == .array { append("]\n") }
        flush()
    }

    mutating func flush() {
        guard !buffer.isEmpty else { return }
        FileHandle.standardOutput.write(Data(buffer))
        buffer.removeAll(keepingCapacity: true)
    }

    private mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private mutating func appendOptionalString(_ text: String?) {
        if let text { appendString(text) } else { append("null") }
    }

    private mutating func appendValue(_ value: DatabaseValue) {
        switch value.storage {
        case .null: append("null")
        case .int64(let number): append(String(number))
        case .double(let number): append(number.isFinite ? String(number) : "null")
        case .string(let text): appendString(text)
        case .blob(let data): appendString(data.base64EncodedString())
        }
    }

    /// A JSON string: quotes, backslashes and control characters escaped, everything else as UTF-8.
    private mutating func appendString(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                           hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: buffer.append(byte)
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }
}
