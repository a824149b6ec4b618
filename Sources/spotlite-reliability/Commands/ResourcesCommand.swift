import ArgumentParser
struct ResourcesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "resources")
    @OptionGroup var options: SuiteOptions
}
