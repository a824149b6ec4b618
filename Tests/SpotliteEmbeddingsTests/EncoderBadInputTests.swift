import Foundation
import SpotliteEmbeddings
import SpotliteTestSupport
import Testing

@Suite("A missing or damaged model is a clear error", .blockingWork)
struct EncoderBadInputTests {
    /// A copy of the default model's small files in a temporary folder, with model.safetensors linked (or cut).
    private func modelCopy(_ body: (URL) throws -> Void) throws {
        let source = ModelLocation.directory
        _ = try ModelLocation.encoder()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-model-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("1_Pooling"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for name in ["config.json", "tokenizer.json", "1_Pooling/config.json", "sentence_bert_config.json"] {
            try FileManager.default.copyItem(at: source.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        try FileManager.default.createSymbolicLink(
            at: folder.appendingPathComponent("model.safetensors"),
            withDestinationURL: source.appendingPathComponent("model.safetensors"))
        try body(folder)
    }

    private func error(loading folder: URL) -> EmbeddingError? {
        do {
            _ = try SentenceEncoder(directory: folder)
            return nil
        } catch let error as EmbeddingError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test("No model folder: the error names the path and make deps")
    func missingDirectory() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-no-model-\(UUID().uuidString)")
        let error = try #require(self.error(loading: folder))
        #expect(error == .modelMissing(path: folder.path))
        #expect(error.description.contains(folder.path) && error.description.contains("make deps"))
    }

    @Test("A folder without model.safetensors names the missing file")
    func missingWeights() throws {
        try modelCopy { folder in
            try FileManager.default.removeItem(at: folder.appendingPathComponent("model.safetensors"))
            let error = try #require(self.error(loading: folder))
            #expect(error == .modelMissing(path: folder.appendingPathComponent("model.safetensors").path))
        }
    }

    @Test("A truncated safetensors file is damage naming the file and the tensor cut short", arguments: [4, 5_000, 11_416, 40_000_000])
    func truncatedWeights(length: Int) throws {
        try modelCopy { folder in
            let weights = folder.appendingPathComponent("model.safetensors")
            let handle = try FileHandle(forReadingFrom: weights)
            let prefix = try handle.read(upToCount: length) ?? Data()
            try handle.close()
            try FileManager.default.removeItem(at: weights)
            try prefix.write(to: weights)
            let error = try #require(self.error(loading: folder))
            guard case .modelDamaged(let path, let problem) = error else {
                Issue.record("expected damage, got \(error)")
                return
            }
            #expect(path == weights.path)
            #expect(problem.contains("truncated"), "\(problem)")
            #expect(error.description.contains("make deps"))
        }
    }

    @Test("A safetensors file with a garbled header is damage, not a crash")
    func garbledHeader() throws {
        try modelCopy { folder in
            let weights = folder.appendingPathComponent("model.safetensors")
            try FileManager.default.removeItem(at: weights)
            var bytes = Data([16, 0, 0, 0, 0, 0, 0, 0])
            bytes.append(contentsOf: Array("{\"a\": [1, 2, 3".utf8) + [0x20, 0x20])
            try bytes.write(to: weights)
            let error = try #require(self.error(loading: folder))
            #expect(error == .modelDamaged(path: weights.path, problem: "its header is not a JSON object (damaged or not a safetensors file)"))
        }
    }

    @Test("A tokenizer whose vocabulary outgrows the model's embeddings is a mismatch")
    func tokenizerMismatch() throws {
        try modelCopy { folder in
            let path = folder.appendingPathComponent("tokenizer.json")
            var text = try String(contentsOf: path, encoding: .utf8)
            let range = try #require(text.range(of: "\"[PAD]\":0,"))
            text.replaceSubrange(range, with: "\"[PAD]\":0,\"zzzextra\":40000,")
            try text.write(to: path, atomically: true, encoding: .utf8)
            let error = try #require(self.error(loading: folder))
            guard case .tokenizerMismatch(let errorPath, let problem) = error else {
                Issue.record("expected a tokenizer mismatch, got \(error)")
                return
            }
            #expect(errorPath == path.path)
            #expect(problem.contains("40000") && problem.contains("30522"))
        }
    }

    @Test("A config.json of another shape than the weights is damage naming the tensor shapes")
    func configOfAnotherModel() throws {
        try modelCopy { folder in
            let path = folder.appendingPathComponent("config.json")
            let text = try String(contentsOf: path, encoding: .utf8)
                .replacingOccurrences(of: "\"hidden_size\": 384", with: "\"hidden_size\": 768")
            try text.write(to: path, atomically: true, encoding: .utf8)
            let error = try #require(self.error(loading: folder))
            guard case .modelDamaged(_, let problem) = error else {
                Issue.record("expected damage, got \(error)")
                return
            }
            #expect(problem.contains("768"), "\(problem)")
            #expect(error.description.contains("config.json") || problem.contains("config.json"), "\(problem)")
        }
    }

    @Test("An empty text, or one of only spaces and control characters, is an error, not a vector")
    func emptyText() throws {
        let encoder = try ModelLocation.encoder()
        for text in ["", "   ", "\t\n\u{0}\u{200B}"] {
            #expect(throws: EmbeddingError.emptyText) { try encoder.vector(for: text) }
        }
        #expect(throws: EmbeddingError.emptyText) { try encoder.vectors(for: ["fine", ""]) }
    }

    @Test("Token ids outside the vocabulary are refused by the numeric core")
    func idsOutsideVocabulary() throws {
        let encoder = try ModelLocation.encoder()
        #expect(throws: EmbeddingError.self) { try encoder.vectors(forTokens: [[101, 40000, 102]]) }
        #expect(throws: EmbeddingError.self) { try encoder.vectors(forTokens: [[]]) }
        #expect(throws: EmbeddingError.self) { try encoder.vectors(forTokens: [Array(repeating: 1996, count: 600)]) }
    }
}
