/// Byte-level text clean-ups for snippets; they run on every hit of every search, so they avoid Foundation's
/// string searching (which goes through ICU) and copy nothing when there is nothing to change.
enum SnippetText {
    /// The entities Xapian writes, without their `&`, and the character each stands for.
    private static let entities: [(name: [UInt8], character: UInt8)] = [
        (Array("lt;".utf8), UInt8(ascii: "<")), (Array("gt;".utf8), UInt8(ascii: ">")),
        (Array("amp;".utf8), UInt8(ascii: "&")), (Array("quot;".utf8), UInt8(ascii: "\"")),
        (Array("#39;".utf8), UInt8(ascii: "'")), (Array("apos;".utf8), UInt8(ascii: "'")),
    ]

    /// Undoes the HTML escaping Xapian applies to snippets (`&lt;` `&gt;` `&amp;` `&quot;` `&#39;` `&apos;`), in one
    /// pass, so that `&amp;lt;` becomes `&lt;` and not `<`.
    static func plain(_ html: String) -> String {
        var html = html
        let plain: String? = html.withUTF8 { bytes in
            guard bytes.contains(UInt8(ascii: "&")) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var index = 0
            scanning: while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "&") {
                    for entity in entities where bytes.count - index - 1 >= entity.name.count
                        && bytes[(index + 1)..<(index + 1 + entity.name.count)].elementsEqual(entity.name) {
                        out.append(entity.character)
                        index += 1 + entity.name.count
                        continue scanning
                    }
                }
                out.append(byte)
                index += 1
            }
            return String(decoding: out, as: UTF8.self)
        }
        return plain ?? html
    }

    /// `text` with every control character but the newline replaced by a space, so that text from the data (an
    /// escape sequence, a bell) can never drive a terminal: C0 controls, DEL and the C1 controls U+0080–U+009F.
    static func withoutControlCharacters(_ text: String) -> String {
        func isControl(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int) -> Int {
            let byte = bytes[index]
            if (byte < 0x20 && byte != 0x0A) || byte == 0x7F { return 1 }
            if byte == 0xC2, index + 1 < bytes.count, (0x80...0x9F).contains(bytes[index + 1]) { return 2 }
            return 0
        }
        var text = text
        let cleaned: String? = text.withUTF8 { bytes in
            guard bytes.indices.contains(where: { isControl(bytes, $0) > 0 }) else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count)
            var index = 0
            while index < bytes.count {
                let width = isControl(bytes, index)
                if width > 0 {
                    out.append(0x20)
                    index += width
                } else {
                    out.append(bytes[index])
                    index += 1
                }
            }
            return String(decoding: out, as: UTF8.self)
        }
        return cleaned ?? text
    }
}
