import ArgumentParser
import Spotlite

extension SearchMode: ExpressibleByArgument {}
