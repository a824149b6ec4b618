import CXapian
import SpotliteStore
/// Placeholder.
public enum SpotliteSearchModule {}
