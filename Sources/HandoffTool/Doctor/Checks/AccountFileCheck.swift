// SPDX-License-Identifier: MIT OR Apache-2.0
import HandoffAgent
import HandoffContinuity
import HandoffModel
#if canImport(Glibc)
import Glibc
#endif

/// The account directory and key file: there, private, ours, readable.
/// The library's AccountStore refuses a key that others may read; this
/// check says so before an app fails on it, and how to fix it.
enum AccountFileCheck: DoctorCheck {
    static func run(_ context: DoctorContext) -> [Finding] {
        let profile: Profile
        do {
            profile = try Profile.open()
        } catch {
            return [.fail("account.file", error.message, todo: tr("set HOME, or XDG_CONFIG_HOME to an absolute path"))]
        }
        context.profile = profile
        var findings: [Finding] = []
        let directory = profile.directory
        var info = stat()
        // The library's own check: a link, another user's directory or one
        // others may write to is refused, before any file in it is read.
        do {
            try profile.store.checkDirectory()
        } catch {
            return [.fail("account.directory", error.message, todo: directoryTodo(directory, info: &info))]
        }
        if lstat(directory, &info) == 0, info.st_mode & 0o077 != 0 {
            findings.append(.warn("account.directory",
                                  tr("{directory} is readable by other users (mode {mode})", ["directory": directory, "mode": octal(info.st_mode & 0o777)]),
                                  todo: "chmod 700 \(directory)"))
        }

        let path = profile.store.accountPath
        if lstat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFLNK {
                return findings + [.fail("account.file", tr("{path} is a symbolic link; libhandoff reads only a regular file", ["path": path]),
                                         todo: tr("replace the link by the file itself (cp --remove-destination \"$(readlink -f {path})\" {path})",
                                                  ["path": path]))]
            }
            if info.st_uid != geteuid() {
                return findings + [.fail("account.file", tr("{path} belongs to user {owner}, not to you ({you})",
                                                                  ["path": path, "owner": "\(info.st_uid)", "you": "\(geteuid())"]),
                                         todo: tr("run as its owner, or `chown $(id -u) {path}`", ["path": path]))]
            }
        }
        do {
            let account = try profile.account()
            context.account = account
            findings.append(.ok("account.file",
                                tr("{path} is private (mode 0600, yours) and holds account {account}", ["path": path, "account": account.id])))
        } catch {
            switch error.code {
            case .notFound:
                findings.append(.fail("account.file", tr("no account on this device ({path} does not exist)", ["path": path]),
                                      todo: tr("`handoff account create` on your first device, `handoff account join CODE` on the others")))
            case .permission:
                findings.append(.fail("account.file", error.message,
                                      todo: tr("chmod 600 {path} (others may have read the key: if so, create a new account and join it on every device)",
                                               ["path": path])))
            default:
                findings.append(.fail("account.file", error.message,
                                      todo: tr("remove {path} and join again with `handoff account join CODE`", ["path": path])))
            }
        }
        return findings
    }

    /// What to do about a directory the library refuses.
    static func directoryTodo(_ directory: String, info: inout stat) -> String {
        guard lstat(directory, &info) == 0 else { return tr("check {directory}", ["directory": directory]) }
        if info.st_mode & S_IFMT == S_IFLNK {
            return tr("replace the link by a real directory: mkdir -m 700 NEW; move the files from \"$(readlink -f {directory})\" into it; rm {directory}; mv NEW {directory}",
                      ["directory": directory])
        }
        if info.st_uid != geteuid() {
            return tr("run as its owner, use a directory of your own (XDG_CONFIG_HOME), or `chown -R $(id -u) {directory}`",
                      ["directory": directory])
        }
        return "chmod 700 \(directory)"
    }

    static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
