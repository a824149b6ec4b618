import GRDB
/// Placeholder.
public enum SpotliteStoreModule {}
