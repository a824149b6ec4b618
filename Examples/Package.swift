// swift-tools-version:6.1
import PackageDescription

// An outside package depending on Spotlite's products as any app would: `make test` builds it, so that the
// products stay usable from another package (no unsafe flags, every public type reachable, GRDB re-exported).
// An app names Spotlite by URL and version instead: .package(url: "…/spotlite.git", from: "1.0.0").
let package = Package(
    name: "SpotliteExamples",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Spotlite", path: ".."),
    ],
    targets: [
        // Semantic search of notes with a real sentence model: the embeddings product over the store (no TOML), then
        // semantic and hybrid search beside the keyword index.
        .executableTarget(
            name: "EmbeddingConsumer",
            dependencies: [
                .product(name: "SpotliteStore", package: "Spotlite"),
                .product(name: "SpotliteEmbeddings", package: "Spotlite"),
                .product(name: "SpotliteHybrid", package: "Spotlite"),
            ]
        ),
        // A notes app: store, tracker and search index configured in Swift.
        .executableTarget(
            name: "NotesApp",
            dependencies: [.product(name: "Spotlite", package: "Spotlite")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
