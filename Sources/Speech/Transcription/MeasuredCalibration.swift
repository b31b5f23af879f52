// The per-engine confidence calibrations Capforge ships. Regenerate with Scripts/calibrate,
// which runs the real engines on the fixtures with reference transcripts and fits each map.
// Engines missing here use ConfidenceCalibration.unmeasured (marked as such in reports).
public enum MeasuredCalibration {
    public static let table = CalibrationTable(
        engines: [
            "pocketsphinx/en-us": ConfidenceCalibration(
                points: [
                    .init(raw: 0.0009, calibrated: 0.0000),
                    .init(raw: 0.0073, calibrated: 0.1724),
                    .init(raw: 0.0350, calibrated: 0.2381),
                    .init(raw: 0.2543, calibrated: 0.2903),
                    .init(raw: 0.3307, calibrated: 0.3485),
                    .init(raw: 0.5445, calibrated: 0.4500),
                    .init(raw: 0.7431, calibrated: 0.5962),
                    .init(raw: 0.9153, calibrated: 0.6667),
                    .init(raw: 0.9729, calibrated: 0.7975),
                    .init(raw: 0.9996, calibrated: 0.9588),
                ],
                measured: true,
                languages: ["en"],
                note: "Scripts/calibrate 2026-12-01: 2014 words, 906 correct (45.0%), PocketSphinx en-us on the held-out calibration recordings (20 files, 15.3 min, Benchmarks/heldout-corpus); correct = equals its Levenshtein-aligned reference word after normalisation; pool-adjacent-violators fit"),
            "vosk": ConfidenceCalibration(
                points: ConfidenceCalibration.unmeasured.points,
                measured: false,
                note: "not measured: no held-out Korean speech with a reference is available from Debian or PyPI; raw confidence is used as is"),
            "whisper/base": ConfidenceCalibration(
                points: [
                    .init(raw: 0.0257, calibrated: 0.0000),
                    .init(raw: 0.4112, calibrated: 0.4286),
                    .init(raw: 0.5570, calibrated: 0.6667),
                    .init(raw: 0.6914, calibrated: 0.7143),
                    .init(raw: 0.8699, calibrated: 0.8542),
                    .init(raw: 0.9034, calibrated: 0.8889),
                    .init(raw: 0.9377, calibrated: 0.9500),
                    .init(raw: 0.9750, calibrated: 0.9663),
                    .init(raw: 0.9818, calibrated: 0.9877),
                    .init(raw: 0.9968, calibrated: 1.0000),
                ],
                combination: EvidenceCombination(
                    intercept: 2.820620,
                    logMeanProbability: 2.125253,
                    logMinimumProbability: 0.483385,
                    segmentLogProbability: 1.918910,
                    tokenCount: -0.444321,
                    logSecondsPerLetter: -0.679157),
                measured: true,
                languages: ["en"],
                note: "Scripts/calibrate 2026-12-01: 1794 words, 1709 correct (95.3%), whisper.cpp with ggml-base on the held-out calibration recordings (20 files, 15.3 min, Benchmarks/heldout-corpus); correct = equals its Levenshtein-aligned reference word after normalisation; logistic model over the word evidence, then pool-adjacent-violators fit"),
            "whisper/tiny.en": ConfidenceCalibration(
                points: [
                    .init(raw: 0.0409, calibrated: 0.0000),
                    .init(raw: 0.2476, calibrated: 0.4000),
                    .init(raw: 0.5060, calibrated: 0.6500),
                    .init(raw: 0.8494, calibrated: 0.7381),
                    .init(raw: 0.8955, calibrated: 0.8205),
                    .init(raw: 0.9345, calibrated: 0.9573),
                    .init(raw: 0.9691, calibrated: 0.9714),
                    .init(raw: 0.9774, calibrated: 0.9756),
                    .init(raw: 0.9831, calibrated: 0.9855),
                    .init(raw: 0.9867, calibrated: 1.0000),
                ],
                combination: EvidenceCombination(
                    intercept: 4.585091,
                    logMeanProbability: 4.774547,
                    logMinimumProbability: -1.984774,
                    segmentLogProbability: 2.512018,
                    tokenCount: -0.967783,
                    logSecondsPerLetter: -0.219185),
                measured: true,
                languages: ["en"],
                note: "Scripts/calibrate 2026-12-01: 1808 words, 1712 correct (94.7%), whisper.cpp with ggml-tiny.en on the held-out calibration recordings (20 files, 15.3 min, Benchmarks/heldout-corpus); correct = equals its Levenshtein-aligned reference word after normalisation; logistic model over the word evidence, then pool-adjacent-violators fit"),
        ],
        crossChecks: [
            "whisper checked by whisper": CrossCheckCalibration(
                disputedWhenRight: 0.0246, disputedWhenWrong: 0.5801,
                note: "Scripts/calibrate 2026-12-01: pooled over the measured pairs (whisper/base checked by whisper/tiny.en, whisper/tiny.en checked by whisper/base); stands in for a pair of Whisper models that was not measured"),
            "whisper/base checked by whisper/tiny.en": CrossCheckCalibration(
                disputedWhenRight: 0.0246, disputedWhenWrong: 0.5765,
                note: "Scripts/calibrate 2026-12-01: of 1709 right and 85 wrong cross-checked words on the held-out calibration recordings (20 files, 15.3 min), the second model disputed 2.5% and 57.6%"),
            "whisper/tiny.en checked by whisper/base": CrossCheckCalibration(
                disputedWhenRight: 0.0245, disputedWhenWrong: 0.5833,
                note: "Scripts/calibrate 2026-12-01: of 1712 right and 96 wrong cross-checked words on the held-out calibration recordings (20 files, 15.3 min), the second model disputed 2.5% and 58.3%"),
        ])
}
