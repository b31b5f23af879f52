import CapforgeCore
import Foundation

/// Finds the `Styles` folder at run time: `$CAPFORGE_STYLES`, the user's own
/// (`~/.local/share/capforge/Styles`), the installed one (`PREFIX/share/capforge/Styles`), then
/// walking up from the executable and from the current directory (a checkout).
public enum StyleLocator {
    public static let environmentVariable = "CAPFORGE_STYLES"

    public static func folder(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        executable: URL? = Bundle.main.executableURL,
        currentDirectory: URL = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    ) throws -> URL {
        var searched: [String] = []
        if let configured = environment[environmentVariable], !configured.isEmpty {
            let url = URL(fileURLWithPath: configured)
            if isDirectory(url) { return url }
            searched.append("\(environmentVariable)=\(configured)")
        }
        let user = InstallLayout.userData(environment: environment).appendingPathComponent("Styles")
        if isDirectory(user) { return user }
        searched.append(user.path)
        if let installed = InstallLayout.shared(executable: executable)?.appendingPathComponent("Styles"), isDirectory(installed) { return installed }
        for start in [executable?.resolvingSymlinksInPath().deletingLastPathComponent(), currentDirectory].compactMap({ $0 }) {
            var directory = start.standardizedFileURL
            while true {
                let candidate = directory.appendingPathComponent("Styles")
                if isDirectory(candidate) { return candidate }
                let parent = directory.deletingLastPathComponent()
                if parent.path == directory.path { break }
                directory = parent
            }
            searched.append("\(start.path) and its parents")
        }
        throw StyleError.folderNotFound(searched: searched)
    }

    private static func isDirectory(_ url: URL) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }
}
