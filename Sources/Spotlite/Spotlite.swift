// The umbrella module: `import Spotlite` gives the store, the search indexer, read replication and the
// configuration file reader.
@_exported import SpotliteConfig
@_exported import SpotliteReplication
@_exported import SpotliteSearch
@_exported import SpotliteStore
