import Foundation

/// A TREC-style test collection's topics and judgements: the queries (`id<TAB>text` lines) and the graded relevance
/// of documents to them (`qrels`: `query_id iteration doc_id grade` lines, grade 0 meaning not relevant).
package struct TRECCollection: Sendable, Hashable {
    /// A query: its id, as the judgements name it, and its text.
    package struct Topic: Sendable, Hashable {
        package var id: String
        package var text: String

        package init(id: String, text: String) {
            self.id = id
            self.text = text
        }
    }

    /// The queries, in file order.
    package var topics: [Topic]
    /// For each query id, the grade of each judged document (only grades above 0: the relevant ones).
    package var judgements: [String: [String: Int]]

    /// A collection from topics and judgements already read.
    package init(topics: [Topic], judgements: [String: [String: Int]]) {
        self.topics = topics
        self.judgements = judgements
    }

    /// The topics that have at least one relevant document: the only ones a measure can score (TREC's convention).
    package var judgedTopics: [Topic] {
        topics.filter { !(judgements[$0.id] ?? [:]).isEmpty }
    }

    /// Parses topics (`id<TAB>text`) and judgements (`query 0 doc grade`, separated by spaces or tabs). Blank lines
    /// and lines starting with `#` are skipped; `source` names the files in errors.
    package init(topicsTSV: String, qrels: String, topicsSource: String = "queries", qrelsSource: String = "qrels") throws {
        var topics: [Topic] = []
        var seen = Set<String>()
        for (index, line) in topicsTSV.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") { continue }
            guard let tab = line.firstIndex(of: "\t") else {
                throw TRECCollectionError(source: topicsSource, line: index + 1, reason: "there is no tab between the query id and its text")
            }
            let id = line[..<tab].trimmingCharacters(in: .whitespaces)
            let text = line[line.index(after: tab)...].trimmingCharacters(in: .whitespaces)
            guard !id.isEmpty, !text.isEmpty else {
                throw TRECCollectionError(source: topicsSource, line: index + 1, reason: "the query id or text is empty")
            }
            guard seen.insert(id).inserted else {
                throw TRECCollectionError(source: topicsSource, line: index + 1, reason: "query id \(id) appears twice")
            }
            topics.append(Topic(id: id, text: text))
        }
        var judgements: [String: [String: Int]] = [:]
        for (index, line) in qrels.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            if line.allSatisfy(\.isWhitespace) || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 4, let grade = Int(fields[3]) else {
                throw TRECCollectionError(source: qrelsSource, line: index + 1, reason: "expected QUERY_ID ITERATION DOC_ID GRADE with a whole-number grade")
            }
            if grade > 0 { judgements[String(fields[0]), default: [:]][String(fields[2])] = grade }
        }
        self.init(topics: topics, judgements: judgements)
    }

    /// Reads the topics and judgements files.
    package init(topicsPath: String, qrelsPath: String) throws {
        func text(_ path: String) throws -> String {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw TRECCollectionError(source: path, line: 0, reason: "the file cannot be read")
            }
            return String(decoding: data, as: UTF8.self)
        }
        try self.init(topicsTSV: try text(topicsPath), qrels: try text(qrelsPath), topicsSource: topicsPath,
                      qrelsSource: qrelsPath)
    }

    /// Query text as the collections' published figures use it: lower-cased, every character that is not a letter
    /// or a digit replaced by a space, spaces collapsed. It also keeps query syntax (quotes, `-`, `:`) out.
    package static func plainQuery(_ text: String) -> String {
        let mapped = text.lowercased().map { $0.isLetter || $0.isNumber ? $0 : " " }
        return String(mapped).split(separator: " ").joined(separator: " ")
    }
}

/// A topics or judgements file that cannot be read.
package struct TRECCollectionError: Error, CustomStringConvertible, Sendable {
    package var source: String
    package var line: Int
    package var reason: String

    package var description: String {
        line > 0 ? "\(source), line \(line): \(reason)" : "\(source): \(reason)"
    }
}
