// `SearchMode`, `SearchRequest` and `SearchResults` belong to the keyword library; a user of the hybrid searcher
// reads them through this module as well.
@_exported import SpotliteSearch
