import Foundation

/// Finds the `Styles` folder at run time: `$CAPFORGE_STYLES`, then walking up from the
/// executable (a build folder or an install prefix), then from the current directory.
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
