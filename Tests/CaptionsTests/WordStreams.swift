import CapforgeCore
import TestSupport

/// Realistic recogniser output: sentences of varied length and speed, clause commas, names,
/// long words, short hesitations, sentence pauses and occasional long silences.
enum WordStreams {
    static let common = [
        "the", "a", "and", "to", "of", "in", "that", "it", "is", "was", "we", "you", "they", "have", "not",
        "with", "for", "on", "this", "but", "so", "what", "about", "really", "think", "know", "people",
        "going", "because", "time", "just", "like", "would", "could", "there", "then", "when", "very",
        "good", "new", "first", "little", "work", "world", "said", "make", "right", "thing", "years",
        "after", "before", "water", "house", "morning", "question", "answer", "started", "between",
    ]
    static let long = [
        "internationalization", "responsibilities", "characteristically", "misunderstanding",
        "telecommunications", "extraordinarily", "counterproductive", "incomprehensibility",
    ]
    static let names = ["Alice", "Bob Marley", "Dr. Chen", "Maria Garcia", "London", "Tuesday"]

    static func stream(seed: UInt64, wordCount: Int = 260, tier: (Int) -> Tier = { _ in .modern }) -> [Word] {
        var rng = SeededGenerator(seed: seed)
        var words: [Word] = []
        var time = Double.random(in: 0...2, using: &rng)
        while words.count < wordCount {
            // Speaking rate for this sentence: 110 to 190 words per minute.
            let secondsPerLetter = 60.0 / Double.random(in: 110...190, using: &rng) / 5.5
            let length = Int.random(in: 2...24, using: &rng)
            for position in 0..<length {
                var text = pick(&rng)
                if position == 0 { text = text.prefix(1).uppercased() + text.dropFirst() }
                if position == length - 1 {
                    text += ["." , ".", ".", "?", "!"].randomElement(using: &rng)!
                } else if Int.random(in: 0..<9, using: &rng) == 0 {
                    text += ","
                }
                for (offset, piece) in text.split(separator: " ").enumerated() {
                    let duration = Double(piece.count + 1) * secondsPerLetter * Double.random(in: 0.8...1.2, using: &rng)
                    if offset > 0 { time += 0.04 }
                    let confidence = Double.random(in: 0.2...1, using: &rng)
                    words.append(Word(text: String(piece), start: time, end: time + duration, confidence: confidence,
                                      tier: tier(words.count), engine: "test"))
                    time += duration
                }
                time += gapAfter(text, &rng)
                if words.count >= wordCount { break }
            }
        }
        return words
    }

    private static func pick(_ rng: inout SeededGenerator) -> String {
        switch Int.random(in: 0..<40, using: &rng) {
        case 0: return long.randomElement(using: &rng)!
        case 1, 2: return names.randomElement(using: &rng)!
        default: return common.randomElement(using: &rng)!
        }
    }

    private static func gapAfter(_ text: String, _ rng: inout SeededGenerator) -> Double {
        let roll = Int.random(in: 0..<100, using: &rng)
        if text.hasSuffix(".") || text.hasSuffix("?") || text.hasSuffix("!") {
            return roll < 10 ? Double.random(in: 2...5, using: &rng) : Double.random(in: 0.1...1.5, using: &rng)
        }
        if text.hasSuffix(",") { return Double.random(in: 0.05...0.6, using: &rng) }
        return roll < 8 ? Double.random(in: 0.2...0.7, using: &rng) : Double.random(in: 0...0.12, using: &rng)
    }
}
