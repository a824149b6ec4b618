import SpotliteTestSupport
import Testing
@testable import SpotliteSearch

/// The byte-level clean-ups applied to every snippet.
@Suite("Snippet text", .blockingWork)
struct SearchSnippetTextTests {
    @Test("HTML entities Xapian writes are undone in one pass",
          arguments: [("a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39; &apos;e&apos;", "a <b> & \"c\" 'd' 'e'"),
                      ("&amp;lt; stays an entity", "&lt; stays an entity"),
                      ("no entities here", "no entities here"),
                      ("dangling & and &unknown; and &lt", "dangling & and &unknown; and &lt"),
                      ("Müller &amp; 日本語", "Müller & 日本語"),
                      ("&", "&"), ("", "")])
    func plain(html: String, expected: String) {
        #expect(SnippetText.plain(html) == expected)
    }

    @Test("control characters become spaces; newlines and all other text stay",
          arguments: [("plain text\nsecond line", "plain text\nsecond line"),
                      ("bell\u{7} escape\u{1B}[31m tab\t cr\r del\u{7F}", "bell  escape [31m tab  cr  del "),
                      ("c1 \u{9B}2J and \u{85}next", "c1  2J and  next"),
                      ("latin-1 punctuation ¡ © stays, as does é", "latin-1 punctuation ¡ © stays, as does é"),
                      ("nul\u{0}byte", "nul byte"), ("", "")])
    func controlCharacters(text: String, expected: String) {
        #expect(SnippetText.withoutControlCharacters(text) == expected)
    }
}
