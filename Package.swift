// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Spotlite",
    platforms: [.macOS(.v14)],
    products: [
        // History tracking, the tracking kit and migrations on SQLite: links neither Xapian nor TOMLKit.
        .library(name: "SpotliteStore", targets: ["SpotliteStore"]),
        // The Xapian indexing delegate and query API, configured in Swift (no TOML reader).
        .library(name: "SpotliteSearch", targets: ["SpotliteSearch"]),
        // Sentence embeddings of the store's records (a BERT-family model read from disk) and a vector index kept
        // by a history consumer: semantic search without Xapian.
        .library(name: "SpotliteEmbeddings", targets: ["SpotliteEmbeddings"]),
        // Where the keyword list and the semantic list meet: search modes and reciprocal rank fusion.
        .library(name: "SpotliteHybrid", targets: ["SpotliteHybrid"]),
        // Read replicas of an index (Xapian's replication programs) and the spawning of server processes.
        .library(name: "SpotliteReplication", targets: ["SpotliteReplication"]),
        // Everything, with the `spotlite.toml` reader: what the command line uses.
        .library(name: "Spotlite", targets: ["Spotlite"]),
        // `spotlite serve` and `spotlite mcp` as a library, so that an app can host the HTTP API or the MCP tools.
        .library(name: "SpotliteServer", targets: ["SpotliteServer"]),
        .executable(name: "spotlite", targets: ["spotlite"]),
        .executable(name: "spotlite-bench", targets: ["spotlite-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        // `swift package generate-documentation`: builds the DocC catalogs; a command plugin, linked into nothing.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", exact: "1.5.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/modelcontextprotocol/swift-sdk", from: "0.12.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        // The only C++: an exception-safe C interface to Xapian (libxapian-dev).
        .target(
            name: "CXapian",
            linkerSettings: [.linkedLibrary("xapian"), .linkedLibrary("stdc++")]
        ),
        // The embedding maths: the BERT forward pass over OpenBLAS (libopenblas-dev) and hnswlib's HNSW graph
        // (libhnswlib-dev, header-only), behind an exception-safe C interface.
        .target(
            name: "CEmbeddings",
            linkerSettings: [.linkedLibrary("openblas"), .linkedLibrary("stdc++"), .linkedLibrary("m")]
        ),
        .target(
            name: "SpotliteEmbeddings",
            dependencies: [
                "SpotliteStore",
                "CEmbeddings",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "SpotliteStore",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .target(
            name: "SpotliteSearch",
            dependencies: [
                "SpotliteStore",
                "CXapian",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Serving an index to read replicas and following one, with Xapian's replication programs run in sessions of
        // their own: above the index, which only refuses writes to a replica and knows nothing of processes.
        .target(
            name: "SpotliteReplication",
            dependencies: ["SpotliteSearch", "SpotliteStore"]
        ),
        // Reads and checks `spotlite.toml` into a `SpotliteConfiguration`.
        .target(
            name: "SpotliteConfig",
            dependencies: [
                "SpotliteSearch",
                "SpotliteStore",
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        // Search modes, the fusion of keyword and semantic results, and the searcher that answers in each mode.
        .target(
            name: "SpotliteHybrid",
            dependencies: ["SpotliteSearch", "SpotliteEmbeddings", "SpotliteStore", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .target(name: "Spotlite", dependencies: ["SpotliteStore", "SpotliteSearch", "SpotliteReplication", "SpotliteConfig", "SpotliteEmbeddings", "SpotliteHybrid"]),
        // The command line's JSON shapes (`spotlite search --json`), written by hand for speed; not a product: the
        // libraries hand out typed values, and only the command line decides how they look as JSON.
        .target(name: "SpotliteJSON", dependencies: ["SpotliteSearch", "SpotliteReplication"]),
        // The HTTP API with its search page (Hummingbird) and the MCP tools, over the libraries and their JSON shapes.
        .target(
            name: "SpotliteServer",
            dependencies: [
                "Spotlite",
                "SpotliteJSON",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "MCP", package: "swift-sdk"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // What the benchmark, the reliability suites and the tests share; not a product.
        .target(
            name: "SpotliteTooling",
            dependencies: ["SpotliteStore", "SpotliteSearch", "SpotliteReplication", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .executableTarget(
            name: "spotlite",
            dependencies: [
                "Spotlite",
                "SpotliteJSON",
                "SpotliteServer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "spotlite-bench",
            dependencies: [
                "Spotlite",
                "CEmbeddings",
                "SpotliteEmbeddings",
                "SpotliteHybrid",
                "SpotliteServer",
                "SpotliteTooling",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Crash, concurrency, bad-input, correctness, remote-shard and resource suites (`make stress`; quick versions run in `make test`).
        .executableTarget(
            name: "spotlite-reliability",
            dependencies: [
                "Spotlite",
                "SpotliteEmbeddings",
                "SpotliteTooling",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What the test targets share (a clock tests advance, a trait for tests that block); no product uses it.
        .target(name: "SpotliteTestSupport", path: "Tests/SpotliteTestSupport"),
        .testTarget(name: "CXapianTests", dependencies: ["CXapian", "SpotliteTestSupport"]),
        .testTarget(name: "SpotliteEmbeddingsTests", dependencies: ["SpotliteEmbeddings", "SpotliteTestSupport"]),
        .testTarget(name: "SpotliteHybridTests", dependencies: ["Spotlite", "SpotliteHybrid", "SpotliteJSON", "SpotliteTooling", "SpotliteTestSupport"]),
        .testTarget(name: "SpotliteStoreTests", dependencies: ["SpotliteStore", "SpotliteTooling", "SpotliteTestSupport"]),
        .testTarget(name: "SpotliteSearchTests", dependencies: ["Spotlite", "SpotliteJSON", "SpotliteTooling", "SpotliteTestSupport"]),
        .testTarget(name: "EndToEndTests", dependencies: ["SpotliteStore", "SpotliteSearch", "SpotliteReplication", "SpotliteTooling", "SpotliteTestSupport"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
