import ArgumentParser
import Foundation
import SpotliteEmbeddings
import SpotliteStore

/// `spotlite-bench embeddings`: the embedding model's speed on real texts (documents and tokens per second), its
/// resident memory, and nearest-neighbour search latency over the vectors it made (exact, and HNSW over
/// synthetic vectors when asked).
struct EmbeddingsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "embeddings",
        abstract: "Measure embedding speed, model memory and vector search latency.",
        discussion: """
        Embeds name + summary of every package of the Debian catalogue and the Cranfield abstracts with the model \
        (make deps installs it), then searches the catalogue's vectors exactly, with the compact scan and with the \
        Float32 scan it replaces, side by side. --hnsw-vectors N[,N…] adds an HNSW run over N synthetic 384-d vectors \
        for each size, with its recall@10 against exact search and exact search's latency at the same size.
        """)

    @Option(help: "The model folder.")
    var model = "Index/models/all-MiniLM-L6-v2"
    @Option(help: "The Debian catalogue (JSON Lines, .xz allowed).")
    var corpus = "../shared/corpus/debian-packages.jsonl.xz"
    @Option(help: "Cranfield's docs.jsonl.")
    var cranfield = "../shared/corpus/cranfield/docs.jsonl"
    @Option(help: "Embed at most this many catalogue records (all by default).")
    var limit: Int?
    @Option(help: "Embed at most this many Cranfield abstracts (all by default; 0 skips them).")
    var cranfieldLimit: Int?
    @Option(help: "Records per call to the model.")
    var batchSize = 64
    @Option(help: "OpenBLAS threads (default: what OpenBLAS picks, one per core).")
    var threads: Int?
    @Option(help: "Queries for each latency measurement.")
    var queries = 1000
    @Option(help: "Vectors searched exactly: the catalogue's, completed with synthetic ones when fewer were embedded (the catalogue has 63,666 records).")
    var searchVectors = 63_666
    @Option(help: "Clusters of the HNSW measurement's synthetic vectors (0: uniform random vectors, the worst case).")
    var hnswClusters = 50
    @Option(help: "Synthetic vectors for the HNSW measurement, or several sizes comma-separated (0: skip).")
    var hnswVectors = "0"
    @Option(help: "Threads building the HNSW graph (default: one per core).")
    var graphThreads = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "HNSW candidate lists (ef) measured, comma-separated.")
    var hnswCandidates = "16,32,64,128,256"
    @Option(help: "A Python with torch and sentence-transformers: embed the same texts with the same model folder (offline), the same threads and batch size, and print the ratio.")
    var torchPython: String?

    func run() throws {
        if let threads { SentenceEncoder.setThreads(threads) }
        print("Machine: \(MachineDescription.current().summary) · OpenBLAS threads \(SentenceEncoder.threads)")
        let before = Self.residentBytes()
        var started = Date()
        let encoder = try SentenceEncoder(directory: URL(fileURLWithPath: model))
        _ = try encoder.vectors(for: ["warm up the model once"])
        let loadSeconds = Date().timeIntervalSince(started)
        let modelResident = Self.residentBytes() - before
        print(String(format: "Model %@: loaded in %.2f s, %.1f MiB resident after one text", model, loadSeconds,
                     Double(modelResident) / 1_048_576))

        let catalogue = try Self.lines(corpus).prefix(limit ?? .max).map { object -> String in
            [object["name"] as? String, object["summary"] as? String].compactMap { $0 }.joined(separator: "\n")
        }
        let (catalogueVectors, catalogueSeconds) = try measure("Debian name + summary", texts: catalogue, encoder: encoder)
        try compareWithTorch("Debian name + summary", texts: catalogue, seconds: catalogueSeconds)
        if cranfieldLimit != 0 {
            let abstracts = try Self.lines(cranfield).map { ($0["text"] as? String) ?? "" }.filter { !$0.isEmpty }
            let texts = Array(abstracts.prefix(cranfieldLimit ?? .max))
            let (_, seconds) = try measure("Cranfield abstracts", texts: texts, encoder: encoder)
            try compareWithTorch("Cranfield abstracts", texts: texts, seconds: seconds)
        }
        print(String(format: "Peak resident memory so far: %.1f MiB", Double(Self.peakResidentBytes()) / 1_048_576))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-bench-vectors-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let index = try VectorIndex(path: folder, hnswThreshold: .max)
        let float32 = try VectorIndex(path: folder, hnswThreshold: .max, exactScan: .float32)
        let dimensions = encoder.dimensions
        var upserts = (0..<catalogue.count).map { row in
            VectorChanges.Upsert(record: RecordID(entity: "Package", key: row.databaseValue),
                                 vector: Array(catalogueVectors[(row * dimensions)..<((row + 1) * dimensions)]))
        }
        var synthetic = SyntheticVectors(dimensions: dimensions, seed: 7)
        while upserts.count < searchVectors {
            upserts.append(.init(record: RecordID(entity: "Synthetic", key: upserts.count.databaseValue), vector: synthetic.next()))
        }
        if upserts.count > catalogue.count {
            print("(\(upserts.count - catalogue.count) synthetic vectors complete the \(catalogue.count) embedded ones for the search measurement)")
        }
        started = Date()
        try index.commit(VectorChanges(upserts: upserts), cursor: nil)
        let commitSeconds = Date().timeIntervalSince(started)
        started = Date()
        _ = try index.search(upserts[0].vector, limit: 10)
        print(String(format: "Vector index: %d vectors committed in %.2f s, loaded for search in %.2f s", upserts.count,
                     commitSeconds, Date().timeIntervalSince(started)))
        _ = try float32.search(upserts[0].vector, limit: 10)
        print(String(format: "Peak resident memory (model, texts, vectors embedded, committed and loaded for search twice): %.1f MiB",
                     Double(Self.peakResidentBytes()) / 1_048_576))
        try compareExactScans(compact: index, float32: float32, queries: (0..<queries).map { upserts[($0 * 7919) % upserts.count].vector },
                              count: upserts.count)
        let sizes = hnswVectors.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        var crossover: [(size: Int, exact: Double, graph: [(candidates: Int, p50: Double, recall: Double)])] = []
        for size in sizes { crossover.append(try measureHNSW(count: size, dimensions: dimensions)) }
        if !crossover.isEmpty {
            print("Exact (compact scan) against HNSW, top 10, p50 (the threshold between them: VectorIndex.hnswThreshold, \(VectorIndex.defaultHNSWThreshold) by default):")
            for entry in crossover {
                let good = entry.graph.filter { $0.recall >= 0.95 }.min { $0.p50 < $1.p50 }
                print(String(format: "  %9d vectors: exact %.2f ms; HNSW %@", entry.size, entry.exact,
                             good.map { String(format: "%.3f ms at ef %d (recall@10 %.3f)", $0.p50, $0.candidates, $0.recall) }
                                 ?? "no ef measured reaches recall@10 0.95"))
            }
        }
    }

    /// The same queries through the compact scan and the Float32 scan, in turn (which goes first alternates), with
    /// their latencies, the bytes each reads per query, and whether they agree.
    private func compareExactScans(compact: VectorIndex, float32: VectorIndex, queries vectors: [[Float]], count: Int) throws {
        var newSamples: [Double] = [], oldSamples: [Double] = []
        var sameOrder = 0, sameSet = 0
        let before = (compact.scanStatistics, float32.scanStatistics)
        func timed(_ index: VectorIndex, _ vector: [Float], into samples: inout [Double]) throws -> [VectorHit] {
            let start = DispatchTime.now().uptimeNanoseconds
            let hits = try index.search(vector, limit: 10)
            samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
            return hits
        }
        for (number, vector) in vectors.enumerated() {
            let new: [VectorHit], old: [VectorHit]
            if number % 2 == 0 {
                new = try timed(compact, vector, into: &newSamples)
                old = try timed(float32, vector, into: &oldSamples)
            } else {
                old = try timed(float32, vector, into: &oldSamples)
                new = try timed(compact, vector, into: &newSamples)
            }
            if new.map(\.record) == old.map(\.record) { sameOrder += 1 }
            if Set(new.map(\.record)) == Set(old.map(\.record)) { sameSet += 1 }
        }
        let new = LatencySummary(samples: newSamples), old = LatencySummary(samples: oldSamples)
        let newStatistics = compact.scanStatistics, oldStatistics = float32.scanStatistics
        let searches = Double(max(1, newStatistics.searches - before.0.searches))
        print(String(format: "Exact top-10 over %d vectors (%d queries, in turn): compact scan p50 %.2f ms, p99 %.2f ms, mean %.2f ms; Float32 scan p50 %.2f ms, p99 %.2f ms, mean %.2f ms; p50 ratio %.2f×",
                     count, vectors.count, new.p50, new.p99, new.mean, old.p50, old.p99, old.mean, old.p50 / new.p50))
        print(String(format: "  bytes read per query: compact %.2f MB (%.1f rows rescored from Float32 on average), Float32 %.2f MB; same top 10 in the same order %d of %d, same set %d",
                     Double(newStatistics.bytesRead - before.0.bytesRead) / searches / 1e6,
                     Double(newStatistics.rowsRescored - before.0.rowsRescored) / searches,
                     Double(oldStatistics.bytesRead - before.1.bytesRead) / Double(max(1, oldStatistics.searches - before.1.searches)) / 1e6,
                     sameOrder, vectors.count, sameSet))
    }

    /// Embeds `texts` with sentence-transformers on PyTorch (CPU) in a child process, and prints its speed and ours
    /// (`seconds`, measured on the same texts just before) side by side.
    private func compareWithTorch(_ name: String, texts: [String], seconds: Double) throws {
        guard let torchPython, !texts.isEmpty else { return }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-bench-torch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let textsFile = folder.appendingPathComponent("texts.json")
        let scriptFile = folder.appendingPathComponent("embed.py")
        try JSONSerialization.data(withJSONObject: texts).write(to: textsFile)
        try Data(Self.torchScript.utf8).write(to: scriptFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: torchPython)
        process.arguments = [scriptFile.path, textsFile.path, URL(fileURLWithPath: model).path, String(SentenceEncoder.threads),
                             String(batchSize)]
        var environment = ProcessInfo.processInfo.environment
        environment["HF_HUB_OFFLINE"] = "1"
        environment["TRANSFORMERS_OFFLINE"] = "1"
        environment["OMP_NUM_THREADS"] = String(SentenceEncoder.threads)
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let line = String(decoding: output, as: UTF8.self).split(separator: "\n").last,
              let result = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let theirs = result["seconds"] as? Double, let tokens = result["tokens"] as? Int
        else {
            throw ValidationError("\(torchPython) could not embed the texts with sentence-transformers (exit \(process.terminationStatus)); give --torch-python a Python with torch and sentence-transformers installed")
        }
        print(String(format: "%@ with sentence-transformers %@ on torch %@ (%d threads, batch %d): %.1f s, %.0f docs/s, %.0f tokens/s; Spotlite / PyTorch: %.2f×",
                     name, (result["sentence_transformers"] as? String) ?? "?", (result["torch"] as? String) ?? "?",
                     (result["threads"] as? Int) ?? 0, batchSize, theirs, Double(texts.count) / theirs, Double(tokens) / theirs,
                     theirs / seconds))
    }

    /// What the child Python runs: the model loaded offline from the same folder, one warm-up batch, then every text
    /// timed (tokenizing included, as ours is).
    private static let torchScript = """
        import json, sys, time
        texts_path, model_path, threads, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
        import torch
        torch.set_num_threads(threads)
        import sentence_transformers
        from sentence_transformers import SentenceTransformer
        model = SentenceTransformer(model_path, device="cpu", local_files_only=True)
        texts = json.load(open(texts_path))
        model.encode(texts[:batch], batch_size=batch)
        start = time.perf_counter()
        model.encode(texts, batch_size=batch, normalize_embeddings=True)
        seconds = time.perf_counter() - start
        tokens = sum(min(len(model.tokenizer(text)["input_ids"]), model.max_seq_length) for text in texts)
        print(json.dumps({"seconds": seconds, "tokens": tokens, "threads": torch.get_num_threads(),
                          "torch": torch.__version__, "sentence_transformers": sentence_transformers.__version__}))
        """

    /// Embeds `texts` in batches and prints documents and tokens per second; returns the vectors and the seconds.
    private func measure(_ name: String, texts: [String], encoder: SentenceEncoder) throws -> ([Float], Double) {
        let started = Date()
        var tokens = 0
        var truncated = 0
        var sequences: [[Int32]] = []
        sequences.reserveCapacity(texts.count)
        for text in texts {
            var encoded = encoder.tokens(of: text)
            if encoded.ids.count <= 2 { encoded.ids = [101, 100, 102] }
            tokens += encoded.ids.count
            if encoded.truncated { truncated += 1 }
            sequences.append(encoded.ids)
        }
        let tokenizeSeconds = Date().timeIntervalSince(started)
        var vectors: [Float] = []
        vectors.reserveCapacity(texts.count * encoder.dimensions)
        var start = 0
        while start < sequences.count {
            let end = min(start + batchSize, sequences.count)
            vectors += try encoder.vectors(forTokens: Array(sequences[start..<end]))
            start = end
        }
        let seconds = Date().timeIntervalSince(started)
        print(String(format: "%@: %d texts, %d tokens (%d cut at %d) in %.1f s (tokenizing %.2f s): %.0f docs/s, %.0f tokens/s",
                     name, texts.count, tokens, truncated, encoder.configuration.maximumTokens, seconds, tokenizeSeconds,
                     Double(texts.count) / seconds, Double(tokens) / seconds))
        return (vectors, seconds)
    }

    private var hnswCandidateList: [Int] {
        hnswCandidates.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
    }

    private func measureHNSW(count: Int, dimensions: Int) throws
        -> (size: Int, exact: Double, graph: [(candidates: Int, p50: Double, recall: Double)])
    {
        var synthetic = SyntheticVectors(dimensions: dimensions, seed: 42, clusters: hnswClusters)
        func vector() -> [Float] { synthetic.next() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("spotlite-bench-hnsw-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let exact = try VectorIndex(path: folder, hnswThreshold: .max)
        var written = 0
        let writeStarted = Date()
        while written < count {
            let chunk = min(100_000, count - written)
            try exact.commit(VectorChanges(upserts: (written..<(written + chunk)).map {
                .init(record: RecordID(entity: "Synthetic", key: $0.databaseValue), vector: vector())
            }), cursor: nil)
            written += chunk
        }
        Progress.note(String(format: "HNSW over %d synthetic vectors: written in %.1f s; loading them and building the graph on %d threads",
                             count, Date().timeIntervalSince(writeStarted), graphThreads))
        let buildStarted = Date()
        let graph = try VectorIndex(path: folder, hnswThreshold: 1, graphThreads: graphThreads) { added, total in
            let seconds = Date().timeIntervalSince(buildStarted)
            Progress.note(String(format: "HNSW graph: %d of %d vectors added (%.0f%%) in %.0f s%@", added, total,
                                 Double(added) * 100 / Double(total), seconds,
                                 added < total && added > 0 ? String(format: ", about %.0f s to go", seconds * Double(total - added) / Double(added)) : ""))
        }
        let started = Date()
        _ = try graph.search(vector(), limit: 10)
        let buildSeconds = Date().timeIntervalSince(started)
        _ = try exact.search(vector(), limit: 10)
        let queryVectors = (0..<min(queries, 500)).map { _ in vector() }
        var exactSamples: [Double] = []
        var truths: [Set<RecordID>] = []
        for query in queryVectors {
            let start = DispatchTime.now().uptimeNanoseconds
            truths.append(Set(try exact.search(query, limit: 10).map(\.record)))
            exactSamples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
        }
        let exactLatency = LatencySummary(samples: exactSamples)
        print(String(format: "HNSW over %d synthetic vectors in %d clusters (M 16, efConstruction 100): loaded and graph built in %.1f s on %d threads; exact top-10 over the same p50 %.2f ms, p99 %.2f ms",
                     count, hnswClusters, buildSeconds, graphThreads, exactLatency.p50, exactLatency.p99))
        var measured: [(candidates: Int, p50: Double, recall: Double)] = []
        for candidates in hnswCandidateList {
            var samples: [Double] = []
            var agreeing = 0
            for (query, truth) in zip(queryVectors, truths) {
                let start = DispatchTime.now().uptimeNanoseconds
                let found = try graph.search(query, limit: 10, candidates: candidates)
                samples.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                agreeing += found.filter { truth.contains($0.record) }.count
            }
            let latency = LatencySummary(samples: samples)
            let recall = Double(agreeing) / Double(10 * queryVectors.count)
            print(String(format: "  ef %4d: top-10 p50 %.3f ms, p99 %.3f ms; recall@10 %.3f", candidates, latency.p50, latency.p99, recall))
            measured.append((candidates, latency.p50, recall))
        }
        return (count, exactLatency.p50, measured)
    }

    private static func lines(_ path: String) throws -> [[String: Any]] {
        let data: Data
        if path.hasSuffix(".xz") {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/xz")
            process.arguments = ["-dc", path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            data = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            guard process.terminationStatus == 0 else { throw ValidationError("xz could not read \(path)") }
        } else {
            guard let contents = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read \(path)") }
            data = contents
        }
        return data.split(separator: UInt8(ascii: "\n")).compactMap {
            (try? JSONSerialization.jsonObject(with: Data($0))) as? [String: Any]
        }
    }

    private static func status(_ field: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(field) {
            return (line.split(separator: " ").dropFirst().compactMap { Int($0) }.first ?? 0) * 1024
        }
        return 0
    }

    static func residentBytes() -> Int { status("VmRSS:") }
    static func peakResidentBytes() -> Int { status("VmHWM:") }
}

/// Normalised random vectors, the same for the same seed: uniform components, or (with `clusters`) Gaussian noise
/// around that many Gaussian centres. Sentence vectors are clustered by topic; uniform random vectors in 384
/// dimensions are all nearly equidistant, the worst case for a graph index (plain hnswlib finds 42% of the true
/// top 10 among 20,000 of them, and 99.9% among clustered ones).
struct SyntheticVectors {
    let dimensions: Int
    private var state: UInt64
    private var centres: [[Float]] = []

    init(dimensions: Int, seed: UInt64, clusters: Int = 0) {
        self.dimensions = dimensions
        state = seed
        centres = (0..<clusters).map { _ in (0..<dimensions).map { _ in gaussian() } }
    }

    private mutating func uniform() -> Float {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Float(state >> 40) / Float(1 << 24)
    }

    private mutating func gaussian() -> Float {
        let u = max(uniform(), 1e-7), v = uniform()
        return (-2 * log(u)).squareRoot() * cos(2 * Float.pi * v)
    }

    mutating func next() -> [Float] {
        var values = [Float](repeating: 0, count: dimensions)
        if centres.isEmpty {
            for index in 0..<dimensions { values[index] = uniform() * 2 - 1 }
        } else {
            let centre = centres[Int(uniform() * Float(centres.count)) % centres.count]
            for index in 0..<dimensions { values[index] = centre[index] + 0.7 * gaussian() }
        }
        let norm = values.reduce(0) { $0 + $1 * $1 }.squareRoot()
        return values.map { $0 / norm }
    }
}
