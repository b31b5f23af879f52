import CapforgeCore
import Testing
@testable import Speech

@Suite struct SeamTests {
    func words(_ text: String, from start: Double, step: Double = 0.4) -> [Word] {
        text.split(separator: " ").enumerated().map { i, part in
            Word(text: String(part), start: start + Double(i) * step, end: start + Double(i) * step + 0.3, confidence: 0.9, tier: .modern, engine: "whisper")
        }
    }

    /// The earlier window stopped decoding a second before its end, and the later one timed the
    /// words it alone heard before the overlap's middle: cutting at the middle lost them (as on
    /// real 30 s windows: "to mute or unmute [yourself you are now muted there is] currently").
    @Test func windowsJoinAtAWordBothHeard() {
        let earlier = words("however you will still hear audio to mute or unmute", from: 20)
        let later = words("audio to mute or unmute yourself you are now muted there is currently", from: 21.7)
        let joined = Seam.joined(earlier, later, overlap: 21.5...24.5, middle: 23.0)
        #expect((joined.earlier + joined.later).map(\.text).joined(separator: " ")
                == "however you will still hear audio to mute or unmute yourself you are now muted there is currently")
    }

    /// Without a word both heard at the same moment, each word is kept from one side of the middle.
    @Test func withoutAnAnchorTheMiddleDecidesAndNothingIsKeptTwice() {
        let earlier = words("one two three four five six seven eight", from: 20, step: 0.5)
        let later = words("uno dos tres cuatro cinco seis", from: 22.1, step: 0.5)
        let joined = Seam.joined(earlier, later, overlap: 22...24, middle: 23.0)
        #expect(joined.earlier.map(\.text) == ["one", "two", "three", "four", "five", "six"])
        #expect(joined.later.map(\.text) == ["tres", "cuatro", "cinco", "seis"])
        // A short word that happens to match is not an anchor.
        let chance = Seam.joined(words("so it is the end", from: 22), words("of the book", from: 22.9), overlap: 22...24, middle: 23)
        #expect((chance.earlier + chance.later).map(\.text) == ["so", "it", "is", "of", "the", "book"])
        // Nor are two ("you are now muted" / "you are currently", as two real windows said).
        #expect(Seam.anchored(words("you are now muted", from: 22), words("you are currently", from: 22.1), overlap: 22...24) == nil)
        #expect(Seam.anchored(words("you are now muted", from: 22), words("you are now here", from: 22.1), overlap: 22...24) != nil)
    }

    /// A window whose audio ended at 79.5 s, mid-sentence, and the next window opening there: the
    /// earlier one's guesses past its audio, all timed 79.49-79.49 by Whisper, go; its real last
    /// word, and a short word that really ends there, stay (a real base-model run).
    @Test func wordsGuessedPastAWindowsAudioGiveWayToTheNextWindow() {
        let heard = words("the conference volume,", from: 78.0, step: 0.5)
        let guessed = words("5 to extend the conference", from: 79.49, step: 0).map { word in
            var word = word
            word.end = word.start
            return word
        }
        let split = Seam.guessedEnd(heard + guessed, heardEnd: 79.5, heardOn: true)
        #expect(split.heard.map(\.text) == ["the", "conference", "volume,"])
        #expect(split.guessed == guessed)
        // Words of no duration well before the window's end are not guesses past it.
        #expect(Seam.guessedEnd(guessed, heardEnd: 85, heardOn: true).heard == guessed)
    }

    /// The window before stopped at 141.95 s; the next opened at a pause at 141.25 s and heard none
    /// of its words again. Its last words, timed late, are squeezed in order before 141.25 s.
    @Test func aStoppedWindowsLateWordsEndWhereTheNextOpens() {
        let earlier = words("going direct the other way.", from: 139.84, step: 0.45)
        let fitted = Seam.fitted(earlier, endingBy: 141.25)
        #expect(fitted.map(\.text) == earlier.map(\.text))
        #expect(fitted.allSatisfy { $0.end <= 141.25 + 1e-9 && $0.start <= $0.end })
        #expect(zip(fitted, fitted.dropFirst()).allSatisfy { $0.end <= $1.start + 1e-9 }, "\(fitted)")
        #expect(Array(fitted.prefix(3)) == Array(earlier.prefix(3)), "words before the limit keep their times")
        // Words all past the limit still come before it, in order.
        let late = Seam.fitted(words("way in", from: 142, step: 0.4), endingBy: 141.25)
        #expect(late.map(\.text) == ["way", "in"] && late.last!.end <= 141.25 + 1e-9 && late[0].start < late[1].start)
    }
}
