import CXapian

extension XapianSearchResults {
    /// Like ``snippet(for:length:language:highlightStart:highlightEnd:omission:)`` but without Xapian's background
    /// model, which looks up the frequency of every word of `text` in the index to favour "interesting" fragments:
    /// that halves the cost of a search with snippets, and the fragment is still chosen for the query's words.
    ///
    /// Temporary: the wrapper has no way to pass snippet flags yet (asked of the shim's owner); once it has, this
    /// goes away in favour of it.
    func querySnippet(for text: String, length: Int, language: String?, highlightStart: String,
                      highlightEnd: String, omission: String = "…") throws -> String {
        try XapianBytes.with(text) { textPointer, textLength in
            try XapianBytes.with(highlightStart) { startPointer, startLength in
                try XapianBytes.with(highlightEnd) { endPointer, endLength in
                    try XapianBytes.with(omission) { omitPointer, omitLength in
                        try (language ?? "none").withCString { languagePointer in
                            var options = cx_snippet_options()
                            options.length = max(1, length)
                            options.stem_language = languagePointer
                            options.highlight_start = startPointer
                            options.highlight_start_len = startLength
                            options.highlight_end = endPointer
                            options.highlight_end_len = endLength
                            options.omit = omitPointer
                            options.omit_len = omitLength
                            options.flags = cx_snippet_exhaustive
                            return try XapianBytes.readString {
                                cx_mset_snippet(handle, textPointer, textLength, &options, $0, $1, $2)
                            }
                        }
                    }
                }
            }
        }
    }
}
