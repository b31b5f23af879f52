import Foundation

/// Lines longer than a format's columns broken again at spaces (a word longer than a line is cut).
enum LineWrap {
    static func wrap(_ lines: [String], columns: Int) -> [String] {
        guard lines.contains(where: { $0.count > columns }) else { return lines }
        var out: [String] = []
        for line in lines {
            var current = ""
            for word in line.split(separator: " ") {
                var word = Substring(word)
                while word.count > columns {
                    if !current.isEmpty { out.append(current); current = "" }
                    out.append(String(word.prefix(columns)))
                    word = word.dropFirst(columns)
                }
                if current.isEmpty { current = String(word) } else if current.count + 1 + word.count <= columns { current += " " + word } else {
                    out.append(current)
                    current = String(word)
                }
            }
            if !current.isEmpty { out.append(current) }
        }
        return out
    }
}
