import Testing

/// Checks the command line's error contract: a non-zero status and exactly one stderr line, `spotlite: …`, that
/// mentions each of `words`.
func expectOneLineError(_ output: CommandLineTool.Output, mentioning words: [String],
                        sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(output.status != 0, "non-zero exit", sourceLocation: sourceLocation)
    let lines = output.stderr.split(separator: "\n")
    #expect(lines.count == 1, "one line: \(output.stderr)", sourceLocation: sourceLocation)
    #expect(output.stderr.hasPrefix("spotlite: "), "\(output.stderr)", sourceLocation: sourceLocation)
    for word in words {
        #expect(output.stderr.contains(word), "mentions \(word): \(output.stderr)", sourceLocation: sourceLocation)
    }
}
