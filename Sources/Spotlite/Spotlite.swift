// The umbrella module: `import Spotlite` gives the store, the search indexer, read replication, the embeddings,
// the search modes and the configuration file reader.
@_exported import SpotliteConfig
@_exported import SpotliteReplication
@_exported import SpotliteSearch
@_exported import SpotliteStore
@_exported import SpotliteEmbeddings
@_exported import SpotliteHybrid
