enum DoctorCommand: Command {
    static let name = "doctor"
    static let summary = "check this device and network for Handoff, and say what to fix"
    static let synopsis = ["doctor"]
    static let details = "TODO"
    static let options: [OptionSpec] = []
    static func run(_ arguments: ParsedArguments, _ output: Output) throws -> Int32 { 0 }
}
