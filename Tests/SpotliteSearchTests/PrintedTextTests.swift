import Foundation
import SpotliteJSON
import SpotliteTestSupport
import Testing

/// The command line's printed output flattens line breaks exactly as Foundation's `replacingOccurrences` did.
@Suite("Printed text", .blockingWork)
struct PrintedTextTests {
    @Test("line breaks become spaces, byte for byte as replacingOccurrences(of: \"\\n\", with: \" \") gives them",
          arguments: ["no line break", "", "\n", "a\nb\n", "\n\nleading and trailing\n\n", "crlf\r\nstays cr", "x\n\r\ny",
                      "combining after a break \n\u{301}x", "é\u{301}\nz\n", "emoji \u{1F600}\n😀\nend", "日本\n語",
                      "zero-width joiner \n\u{200D}x", "a\n\u{300}\u{301}b\nc", "tab\tand\u{7}bell\nkept"])
    func flattened(text: String) {
        let flat = PrintedText.flattened(text)
        #expect(Array(flat.utf8) == Array(text.replacingOccurrences(of: "\n", with: " ").utf8))
    }

    @Test("a break Foundation keeps (a combining mark follows it) is kept; the others in the same text still go")
    func combiningMark() {
        #expect(PrintedText.flattened("one\ntwo\n\u{301}three") == "one two\n\u{301}three")
    }
}
