import Foundation

/// Where Capforge's data lives outside a checkout: the user's own folder, and the
/// `PREFIX/share/capforge` that `Scripts/install` and the Debian package put beside `PREFIX/bin`.
public enum InstallLayout {
    /// `$XDG_DATA_HOME/capforge`, else `~/.local/share/capforge`.
    public static func userData(environment: [String: String]) -> URL {
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".local/share")
        return dataHome.appendingPathComponent("capforge")
    }

    /// `PREFIX/share/capforge` for an executable in `PREFIX/bin`, when that folder exists.
    public static func shared(executable: URL?) -> URL? {
        guard let executable else { return nil }
        let share = executable.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/capforge")
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: share.path, isDirectory: &isDirectory) && isDirectory.boolValue ? share : nil
    }
}
