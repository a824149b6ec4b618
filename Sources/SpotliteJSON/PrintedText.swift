import Foundation

/// Text clean-ups for the command line's printed (not JSON) output, which runs them on every field and snippet of
/// every hit of a `--queries` batch.
package enum PrintedText {
    /// `text` with its line breaks ("\n") replaced by spaces, exactly as `text.replacingOccurrences(of: "\n",
    /// with: " ")` gives it. Foundation's search (through NSString on Linux) cost more than printing the rest of the
    /// hit, so the bytes are replaced directly, and text without a line break is returned as it is. Only where a
    /// line break is followed by a non-ASCII character does Foundation decide: its search leaves a "\n" followed by
    /// a combining mark as it is.
    package static func flattened(_ text: String) -> String {
        enum Outcome {
            case unchanged, flattened(String), foundation
        }
        var text = text
        let outcome: Outcome = text.withUTF8 { utf8 in
            let newline = UInt8(ascii: "\n")
            guard utf8.contains(newline) else { return .unchanged }
            for index in utf8.indices where utf8[index] == newline && index + 1 < utf8.count && utf8[index + 1] >= 0x80 {
                return .foundation
            }
            return .flattened(String(unsafeUninitializedCapacity: utf8.count) { buffer in
                for index in utf8.indices { buffer[index] = utf8[index] == newline ? UInt8(ascii: " ") : utf8[index] }
                return utf8.count
            })
        }
        switch outcome {
        case .unchanged: return text
        case .flattened(let flat): return flat
        case .foundation: return text.replacingOccurrences(of: "\n", with: " ")
        }
    }
}
