import SpotliteStore
import SpotliteSearch
import Foundation

/// A list of known-item queries, read from and written as TSV: one `key<TAB>query` line per query.
///
/// Blank lines and lines starting with `#` are skipped; a line without a tab, or with an empty key or query, is an
/// error naming the line.
package struct RelevanceQuerySet: Sendable, Hashable {
    /// The queries, in file order.
    package var judgments: [RelevanceJudgment]

    /// A set of these judgments.
    package init(_ judgments: [RelevanceJudgment]) {
        self.judgments = judgments
    }

    /// Parses TSV text; `source` names it in errors.
    /// - Throws: ``SearchError/invalidQuerySet(source:line:reason:)``.
    package init(tsv: String, source: String = "query set") throws {
        var judgments: [RelevanceJudgment] = []
        // "\r\n" is one Character in Swift: splitting on isNewline handles both line ends.
        for (index, line) in tsv.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") { continue }
            guard let tab = line.firstIndex(of: "\t") else {
                throw SearchError.invalidQuerySet(source: source, line: index + 1, reason: .noTab)
            }
            let key = String(line[..<tab])
            let query = String(line[line.index(after: tab)...]).trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else {
                throw SearchError.invalidQuerySet(source: source, line: index + 1, reason: .emptyKey)
            }
            guard !query.isEmpty else {
                throw SearchError.invalidQuerySet(source: source, line: index + 1, reason: .emptyQuery)
            }
            judgments.append(RelevanceJudgment(key: key, query: query))
        }
        self.judgments = judgments
    }

    /// Reads a TSV file.
    /// - Throws: ``SearchError/invalidQuerySet(source:line:reason:)``, also when the file cannot be read.
    package init(contentsOf path: String) throws {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw SearchError.invalidQuerySet(source: path, line: 0, reason: .unreadable(message: error.localizedDescription))
        }
        try self.init(tsv: text, source: path)
    }

    /// The set as TSV text (tabs and newlines inside queries become spaces).
    package var tsv: String {
        judgments.map { judgment in
            let clean = { (text: String) in
                text.map { $0 == "\t" || $0.isNewline ? " " : $0 }.reduce(into: "") { $0.append($1) }
            }
            return clean(judgment.key) + "\t" + clean(judgment.query) + "\n"
        }.joined()
    }
}
