import ArgumentParser
struct BadInputCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "bad-input")
    @OptionGroup var options: SuiteOptions
}
