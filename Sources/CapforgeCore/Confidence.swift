/// The shared scale of calibrated confidence: the measured probability that a word is right.
public enum Confidence {
    /// Words below this are marked low-confidence (ASS colour, report share). `Scripts/calibrate`
    /// reports the highest value at which at most 5 % of right Whisper words are marked on the
    /// held-out calibration recordings: 0.82 (2026-12-01, word-evidence calibration), marking
    /// 52 % of tiny.en's and 31 % of base's wrong words there, and 64 % of each one's when the
    /// other cross-checks it (`--cross-check`).
    public static let defaultThreshold = 0.82
}
