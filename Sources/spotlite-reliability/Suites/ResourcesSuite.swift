struct ResourcesSuite {
    struct Settings { static func forMode(long: Bool) -> Settings { Settings() } }
    init(workspace: Workspace, report: SuiteReport, settings: Settings, seed: UInt64) throws {}
    mutating func run() throws {}
}
