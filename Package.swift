// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Spotlite",
    platforms: [.macOS(.v14)],
    products: [
        // The one library users depend on: the store, its history, the tracking kit and the search indexer.
        // CXapian stays an implementation detail of SpotliteSearch.
        .library(name: "Spotlite", targets: ["SpotliteStore", "SpotliteSearch"]),
        .executable(name: "spotlite", targets: ["spotlite"]),
        .executable(name: "spotlite-bench", targets: ["spotlite-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
    ],
    targets: [
        .target(
            name: "CXapian",
            cxxSettings: [.unsafeFlags(["-std=c++17"])],
            linkerSettings: [.linkedLibrary("xapian"), .linkedLibrary("stdc++")]
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
                .product(name: "TOMLKit", package: "TOMLKit"),
            ]
        ),
        .executableTarget(
            name: "spotlite",
            dependencies: [
                "SpotliteStore",
                "SpotliteSearch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "spotlite-bench",
            dependencies: [
                "SpotliteStore",
                "SpotliteSearch",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "CXapianTests", dependencies: ["CXapian"]),
        .testTarget(name: "SpotliteStoreTests", dependencies: ["SpotliteStore"]),
        .testTarget(name: "SpotliteSearchTests", dependencies: ["SpotliteSearch", "SpotliteStore"]),
        .testTarget(name: "EndToEndTests", dependencies: ["SpotliteStore"]),
    ],
    swiftLanguageModes: [.v6]
)
