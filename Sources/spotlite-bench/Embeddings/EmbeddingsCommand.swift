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
        for each size, with its recall@10 against exact search and exact search's latency at the same size; \
        --hnsw-cache DIR keeps those vectors and graphs, so a later run (on a quiet machine) loads them in a minute \
        instead of building them again. --real-vectors FILE keeps the catalogue's vectors (written after embedding the \
        whole catalogue, read when present): the synthetic vectors' spectrum is then computed from them, and \
        --hnsw-calibrate compares HNSW's recall on them with the synthetic recipes' at the same size.
        """)

    @Option(help: "The model folder.")
    var model = "Index/models/all-MiniLM-L6-v2"
    @Option(help: "The Debian catalogue (JSON Lines, .xz allowed).")
    var corpus = "../shared/corpus/debian-packages.jsonl.xz"
    @Option(help: "Cranfield's docs.jsonl.")
    var cranfield = "../shared/corpus/cranfield/docs.jsonl"
    /// The Debian 12 catalogue's records: the exact search's default set, and the size the mixture's clusters of
    /// 20 were fitted at.
    static let catalogueRecords = 63_666

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
    var searchVectors = Self.catalogueRecords
    @Option(help: "How the HNSW measurement's synthetic vectors are drawn: spectrum-mixture (clusters of --hnsw-cluster-size vectors, centres and spread following the catalogue vectors' covariance spectrum: what behaves like the real vectors, docs/embeddings.md), spectrum (one Gaussian with that spectrum), clusters (--hnsw-clusters isotropic Gaussian clusters) or uniform (the worst case).")
    var hnswGenerator = "spectrum-mixture"
    @Option(help: "Clusters of the clusters recipe.")
    var hnswClusters = 50
    @Option(help: "The spectrum-mixture recipe's vectors per cluster (default: 20 at the catalogue's 63,666 vectors, growing in proportion with the set, so that a larger set is denser as the real vectors' subsets are, docs/embeddings.md).")
    var hnswClusterSize: Int?
    @Option(help: "The spectrum-mixture recipe's share of the variance within clusters (0 to 1).")
    var hnswWithin = 0.5
    @Option(help: "Synthetic vectors for the HNSW measurement, or several sizes comma-separated (0: skip).")
    var hnswVectors = "0"
    @Option(help: "Threads building the HNSW graph (default: one per core).")
    var graphThreads = ProcessInfo.processInfo.activeProcessorCount
    @Option(help: "HNSW candidate lists (ef) measured, comma-separated.")
    var hnswCandidates = "16,32,64,128,256"
    @Option(name: .customLong("hnsw-m"), help: "The HNSW graph's connections per node (M).")
    var hnswConnections = VectorIndex.defaultHNSWConnections
    @Option(help: "The HNSW graph's candidate list while building (efConstruction).")
    var hnswEfConstruction = VectorIndex.defaultHNSWConstructionCandidates
    @Option(help: "Distance kernels measured side by side on the same graph, comma-separated: automatic, portable, avx2, hnswlib (hnswlib's own compile-time loop).")
    var hnswKernels = "automatic"
    @Option(help: "A folder keeping the HNSW measurement's vectors and graphs, one subfolder per recipe, size, M and efConstruction; reused when they match, rebuilt (saying why) when not.")
    var hnswCache: String?
    @Option(help: "A file of the catalogue's vectors (Float32, 384 a row): read when present; otherwise written after embedding the whole catalogue (no --limit).")
    var realVectors: String?
    @Option(help: "Compare HNSW's recall on the real vectors (--real-vectors, some held out as queries) with these synthetic recipes' at the same size, comma-separated (spectrum, spectrum-mixture, clusters, uniform).")
    var hnswCalibrate: String?
    @Option(help: "Write the real vectors' covariance spectrum as the Swift fixture the spectrum recipes use without --real-vectors.")
    var spectrumOutput: String?
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
        let real = try realCatalogueVectors(embedded: catalogueVectors, texts: catalogue.count, dimensions: dimensions)
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
        let spectrum = try catalogueSpectrum(real: real, dimensions: dimensions)
        let measurement = try hnswMeasurement()
        if let hnswCalibrate {
            guard let real else { throw ValidationError("--hnsw-calibrate compares with the real vectors: give --real-vectors FILE") }
            let set = HNSWVectorSet.real(real, dimensions: dimensions, queries: min(queries, 500), seed: 42)
            print("Calibration: HNSW over the catalogue's \(set.count) real vectors (\(set.queries.count) more held out as queries), then over as many of each synthetic recipe")
            _ = try measurement.run(set)
            for name in hnswCalibrate.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                let recipe = try generator(named: name, spectrum: spectrum, dimensions: dimensions, count: set.count)
                _ = try measurement.run(.generated(by: recipe, count: set.count, queries: set.queries.count))
            }
        }
        let sizes = hnswVectors.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        var crossover: [HNSWMeasurement.Result] = []
        for size in sizes {
            let recipe = try generator(named: hnswGenerator, spectrum: spectrum, dimensions: dimensions, count: size)
            crossover.append(try measurement.run(.generated(by: recipe, count: size, queries: min(queries, 500))))
        }
        if !crossover.isEmpty {
            print("Exact (compact scan) against HNSW, top 10, p50 (the threshold between them: VectorIndex.hnswThreshold, \(VectorIndex.defaultHNSWThreshold) by default):")
            for entry in crossover {
                let good = entry.graph.filter { $0.recall >= 0.95 }.min { $0.p50 < $1.p50 }
                print(String(format: "  %9d vectors: exact %.2f ms; HNSW %@", entry.size, entry.exactP50,
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

    private func hnswMeasurement() throws -> HNSWMeasurement {
        let kernels = try hnswKernels.split(separator: ",").map { name -> VectorIndex.DistanceKernel in
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            guard let kernel = VectorIndex.DistanceKernel(rawValue: trimmed) else {
                throw ValidationError("--hnsw-kernels: no kernel \(trimmed); choose among \(VectorIndex.DistanceKernel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            guard kernel.isAvailable else { throw ValidationError("--hnsw-kernels: this processor cannot run the \(trimmed) kernel (no AVX2 and FMA)") }
            return kernel
        }
        guard !kernels.isEmpty else { throw ValidationError("--hnsw-kernels: name at least one kernel") }
        return HNSWMeasurement(connections: hnswConnections, constructionCandidates: hnswEfConstruction,
                               candidates: hnswCandidateList, kernels: kernels, graphThreads: graphThreads, cache: hnswCache)
    }

    /// The mixture's cluster size for a set of `count` vectors: 20 at the catalogue's size, in proportion otherwise.
    ///
    /// Subsets of the catalogue's real vectors get denser as they grow (their nearest neighbour comes closer) and
    /// keep their recall at a given ef; a mixture grown by adding clusters of 20 does neither, and one grown by
    /// filling a fixed number of clusters does the first (docs/embeddings.md, "How recall changes with size").
    static func mixtureClusterSize(forCount count: Int) -> Int {
        max(1, Int((20 * Double(count) / Double(catalogueRecords)).rounded()))
    }

    private func generator(named name: String, spectrum: CovarianceSpectrum, dimensions: Int, count: Int) throws -> VectorGenerator {
        let kind: VectorGenerator.Kind
        switch name {
        case "spectrum": kind = .spectrum(spectrum)
        case "spectrum-mixture":
            let clusterSize = hnswClusterSize ?? Self.mixtureClusterSize(forCount: count)
            guard (0...1).contains(hnswWithin), clusterSize > 0 else {
                throw ValidationError("--hnsw-within must be between 0 and 1 and --hnsw-cluster-size positive")
            }
            kind = .spectrumMixture(spectrum, clusterSize: clusterSize, within: hnswWithin)
        case "clusters": kind = hnswClusters > 0 ? .clusters(hnswClusters) : .uniform
        case "uniform": kind = .uniform
        default: throw ValidationError("no synthetic recipe \(name): choose spectrum, spectrum-mixture, clusters or uniform")
        }
        return VectorGenerator(kind: kind, dimensions: dimensions, seed: 42, count: count)
    }

    /// The catalogue's vectors from --real-vectors: read when the file is there, else written from those just
    /// embedded (the whole catalogue only).
    private func realCatalogueVectors(embedded: [Float], texts: Int, dimensions: Int) throws -> [Float]? {
        guard let realVectors else { return nil }
        if let data = FileManager.default.contents(atPath: realVectors) {
            guard data.count > 0, data.count % (dimensions * 4) == 0 else {
                throw ValidationError("\(realVectors) holds \(data.count) bytes, not rows of \(dimensions) Float32 values: delete it and run again without --limit to embed the catalogue again")
            }
            let vectors = data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            print("Real vectors: \(vectors.count / dimensions) read from \(realVectors)")
            return vectors
        }
        guard limit == nil, texts > 0 else {
            throw ValidationError("\(realVectors) does not exist yet: run once without --limit, which embeds the whole catalogue and writes it")
        }
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: realVectors).deletingLastPathComponent(),
                                                withIntermediateDirectories: true)
        try embedded.withUnsafeBytes { Data($0) }.write(to: URL(fileURLWithPath: realVectors), options: .atomic)
        print("Real vectors: the \(texts) just embedded written to \(realVectors)")
        return embedded
    }

    /// The spectrum the synthetic recipes draw from: the committed fixture (so that the same recipe gives the same
    /// vectors, and a kept cache stays valid, with or without the real vectors at hand). With the real vectors, their
    /// spectrum is computed and compared with it (--spectrum-output writes it as the fixture).
    private func catalogueSpectrum(real: [Float]?, dimensions: Int) throws -> CovarianceSpectrum {
        let fixture = CovarianceSpectrum.catalogue
        guard let real else {
            if spectrumOutput != nil { throw ValidationError("--spectrum-output needs the real vectors: give --real-vectors FILE") }
            guard fixture.dimensions == dimensions else {
                throw ValidationError("the committed spectrum has \(fixture.dimensions) dimensions, the model \(dimensions): give --real-vectors FILE to compute it")
            }
            print("Synthetic spectrum: the committed fixture (the catalogue's vectors): \(fixture.summary)")
            return fixture
        }
        let spectrum = try CovarianceSpectrum(of: real, dimensions: dimensions)
        print("Spectrum of the \(real.count / dimensions) real vectors: \(spectrum.summary)")
        if let spectrumOutput {
            let origin = "From \(real.count / dimensions) vectors of \(URL(fileURLWithPath: realVectors ?? "?").lastPathComponent): \(spectrum.summary)."
            try Data(spectrum.swiftSource(describing: origin).utf8).write(to: URL(fileURLWithPath: spectrumOutput), options: .atomic)
            print("  written to \(spectrumOutput)")
        }
        guard fixture.dimensions == dimensions else {
            print("  (no committed spectrum of \(dimensions) dimensions: the synthetic recipes draw from this one)")
            return spectrum
        }
        print(String(format: "  the synthetic recipes draw from the committed fixture, which differs from it by at most %.2e (relative)",
                     spectrum.difference(from: fixture)))
        return fixture
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
