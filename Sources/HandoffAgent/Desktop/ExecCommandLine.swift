// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffModel

/// An `Exec` value turned into the argument vector the agent starts
/// (Desktop Entry Specification, "The Exec key"). Never given to a shell.
///
/// Quoting (applied to the value after the string escapes are undone):
/// arguments are separated by spaces; an argument holding a reserved
/// character (space, tab, newline, `"` `'` `\` `>` `<` `~` `|` `&` `;` `$`
/// `*` `?` `#` `(` `)` `` ` ``) must be quoted in whole in double quotes,
/// inside which `\"`, `` \` ``, `\$` and `\\` stand for the character.
/// An unquoted reserved character, a quote that does not enclose a whole
/// argument, an unknown backslash sequence in quotes or an unterminated
/// quote makes the line invalid: the agent starts nothing rather than
/// guess what a shell would have done.
///
/// Field codes: the agent continues an activity, it opens no file or URL,
/// so `%f %F %u %U` (at most one of them) and `%i %c %k` are removed, as
/// are the deprecated `%d %D %n %N %v %m`; `%%` is a literal `%`. An
/// argument that held field codes and nothing else is dropped. Any other
/// `%` sequence makes the line invalid. Nothing is ever substituted into an
/// argument, so no value from the network reaches the command line; the
/// documents bridge's `opening(path:fileURL:)` adds a local file's path as
/// one whole argument where `%f`/`%u` stood.
public struct ExecCommandLine: Sendable, Equatable {
    /// The program as written (a bare name or an absolute path), then its
    /// arguments.
    public private(set) var arguments: [String]

    public var program: String { arguments[0] }

    /// Where the line's file field code stood, for `opening(_:)`: the
    /// index in `arguments` its argument would take, and whether it asked
    /// for URLs (`%u %U`) or paths (`%f %F`). Nil when it had none.
    public private(set) var fileField: FileField? = nil

    public struct FileField: Sendable, Equatable {
        public var index: Int
        public var wantsURL: Bool
    }

    /// The command line that opens `path` (`fileURL` is its `file:` URL):
    /// the file put where the line's field code stood, as one argument (GLib
    /// does the same); a line without one gets it last, as GLib appends it.
    /// The value is one argv element, never parsed again.
    public func opening(path: String, fileURL: String) -> ExecCommandLine {
        var out = self
        let field = fileField ?? FileField(index: arguments.count, wantsURL: false)
        out.arguments.insert(field.wantsURL ? fileURL : path, at: min(field.index, arguments.count))
        out.fileField = nil
        return out
    }

    /// - Throws: `.malformedData` saying what is wrong and where (the
    ///   caller adds file and line).
    public init(_ value: String) throws(HandoffError) {
        var arguments: [String] = []
        var fileCodes = 0
        var fileField: FileField?
        for token in try Self.split(value) {
            let (argument, onlyFieldCodes, files) = try Self.removeFieldCodes(token)
            fileCodes += files
            if files > 0, fileField == nil {
                fileField = FileField(index: arguments.count + (onlyFieldCodes ? 0 : 1),
                                      wantsURL: token.containsCharacters("%u") || token.containsCharacters("%U"))
            }
            if !onlyFieldCodes { arguments.append(argument) }
        }
        guard fileCodes <= 1 else {
            throw Self.invalid("\(fileCodes) of the field codes %f %F %u %U; a command line may hold at most one")
        }
        guard let program = arguments.first, !program.isEmpty else {
            throw Self.invalid("names no program")
        }
        guard !program.contains("=") else {
            throw Self.invalid("the program \(DesktopEntry.quoted(program)) contains \"=\", which the spec forbids")
        }
        self.arguments = arguments
        self.fileField = fileField
    }

    static let reserved: Set<Character> = [" ", "\t", "\n", "\"", "'", "\\", ">", "<", "~", "|", "&", ";", "$", "*", "?", "#", "(", ")", "`"]
    static let escapableInQuotes: Set<Character> = ["\"", "`", "$", "\\"]

    /// Splits at spaces, undoing the quoting.
    static func split(_ value: String) throws(HandoffError) -> [String] {
        var tokens: [String] = []
        var index = value.startIndex
        while index < value.endIndex {
            if value[index] == " " {
                index = value.index(after: index)
                continue
            }
            var token = ""
            if value[index] == "\"" {
                index = value.index(after: index)
                var closed = false
                while index < value.endIndex {
                    let c = value[index]
                    index = value.index(after: index)
                    if c == "\"" { closed = true; break }
                    if c == "\\" {
                        guard index < value.endIndex, escapableInQuotes.contains(value[index]) else {
                            let next = index < value.endIndex ? "\\\(value[index])" : "a lone \\"
                            throw invalid("\(next) inside quotes; only \\\" \\` \\$ and \\\\ may be escaped there (in the file, \\\\\\\\ is one backslash)")
                        }
                        token.append(value[index])
                        index = value.index(after: index)
                    } else {
                        token.append(c)
                    }
                }
                guard closed else { throw invalid("a double quote is not closed") }
                guard index == value.endIndex || value[index] == " " else {
                    throw invalid("a quoted argument must be quoted in whole (a character follows the closing quote)")
                }
            } else {
                while index < value.endIndex, value[index] != " " {
                    let c = value[index]
                    guard !reserved.contains(c) else {
                        throw invalid("\(describe(c)) outside quotes; an argument holding it must be quoted in whole with double quotes (no shell runs the line)")
                    }
                    token.append(c)
                    index = value.index(after: index)
                }
            }
            tokens.append(token)
        }
        return tokens
    }

    static let removedCodes: Set<Character> = ["f", "F", "u", "U", "i", "c", "k", "d", "D", "n", "N", "v", "m"]

    static let fileCodes: Set<Character> = ["f", "F", "u", "U"]

    /// The argument with its field codes removed, whether it consisted of
    /// field codes alone (then it is dropped), and how many of them stood
    /// for files or URLs.
    static func removeFieldCodes(_ token: String) throws(HandoffError) -> (String, Bool, Int) {
        guard token.contains("%") else { return (token, false, 0) }
        var result = ""
        var removed = false
        var files = 0
        var index = token.startIndex
        while index < token.endIndex {
            let c = token[index]
            index = token.index(after: index)
            guard c == "%" else { result.append(c); continue }
            guard index < token.endIndex else { throw invalid("a lone % at the end of an argument; write %% for a percent sign") }
            let code = token[index]
            index = token.index(after: index)
            if code == "%" {
                result.append("%")
            } else if removedCodes.contains(code) {
                removed = true
                if fileCodes.contains(code) { files += 1 }
            } else {
                throw invalid("unknown field code %\(code); write %% for a percent sign")
            }
        }
        return (result, removed && result.isEmpty, files)
    }

    private static func describe(_ c: Character) -> String {
        switch c {
        case "\t": "a tab"
        case "\n": "a newline"
        default: "\"\(c)\""
        }
    }

    static func invalid(_ message: String) -> HandoffError {
        HandoffError(.malformedData, "Exec: \(message)")
    }
}
