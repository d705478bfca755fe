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
/// argument, so no value from the network reaches the command line.
public struct ExecCommandLine: Sendable, Equatable {
    /// The program as written (a bare name or an absolute path), then its
    /// arguments.
    public let arguments: [String]

    public var program: String { arguments[0] }

    /// - Throws: `.malformedData` saying what is wrong and where (the
    ///   caller adds file and line).
    public init(_ value: String) throws(HandoffError) {
        var arguments: [String] = []
        var fileCodes = 0
        for token in try Self.split(value) {
            let (argument, onlyFieldCodes, files) = try Self.removeFieldCodes(token)
            fileCodes += files
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
