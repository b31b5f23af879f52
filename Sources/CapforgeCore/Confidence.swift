/// The shared scale of calibrated confidence: the measured probability that a word is right.
public enum Confidence {
    /// Words below this are marked low-confidence (ASS colour, report share). `Scripts/calibrate`
    /// reports the highest value at which at most 5 % of right Whisper words are marked on the
    /// held-out calibration recordings: 0.84 (2026-12-01, word-evidence calibration), marking
    /// 47 % of tiny.en's and 35 % of base's wrong words there.
    public static let defaultThreshold = 0.84
}
