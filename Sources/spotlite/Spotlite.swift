import ArgumentParser

@main
struct Spotlite: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "spotlite", abstract: "A history-driven search indexer.")
    func run() throws {}
}
