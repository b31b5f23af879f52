import CapforgeCore
import Testing

@Suite struct MediaTimeTests {
    @Test func millisecondsFloorForCuesAndRoundLikeFFmpeg() {
        #expect(MediaTime(microseconds: 1_999).flooredMilliseconds == 1)
        #expect(MediaTime(microseconds: -1).flooredMilliseconds == -1)
        #expect(MediaTime(microseconds: -1_000).flooredMilliseconds == -1)
        #expect(MediaTime(microseconds: 1_500).roundedMilliseconds == 2)
        #expect(MediaTime(microseconds: 1_499).roundedMilliseconds == 1)
        #expect(MediaTime(microseconds: -1_500).roundedMilliseconds == -2)
        #expect(MediaTime(microseconds: -1_499).roundedMilliseconds == -1)
        #expect(MediaTime.milliseconds(250).seconds == 0.25)
        #expect(MediaTime(seconds: 1 / 15.0).microseconds == 66_667)
    }

    @Test func damagedTimesSaturateInsteadOfTrapping() {
        let late = MediaTime(microseconds: .max - 10)
        #expect((late + .milliseconds(1)).microseconds == .max)
        #expect((MediaTime(microseconds: .min + 10) - .milliseconds(1)).microseconds == .min)
        #expect(MediaTime(seconds: .infinity).microseconds == .max)
        #expect(MediaTime(seconds: -1e300).microseconds == .min)
        #expect(MediaTime(seconds: .nan) == .zero)
        #expect(MediaTime(microseconds: .max).roundedMilliseconds == Int(Int64.max / 1000 + 1))
    }
}
