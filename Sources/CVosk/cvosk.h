#ifndef CAPFORGE_CVOSK_H
#define CAPFORGE_CVOSK_H
/*
 * Project-written declarations for the subset of libvosk's C API that Capforge calls.
 * The PyPI wheel (vosk==0.3.45) ships libvosk.so without a header; these prototypes follow
 * the library's public API documentation and are checked against the exported symbols.
 */

typedef struct VoskModel VoskModel;
typedef struct VoskRecognizer VoskRecognizer;

/* Negative silences informational logging; Kaldi errors still reach stderr. */
void vosk_set_log_level(int log_level);

/* NULL when the directory holds no readable model. */
VoskModel *vosk_model_new(const char *model_path);
void vosk_model_free(VoskModel *model);

/* NULL on failure. The recognizer keeps its own reference to the model. */
VoskRecognizer *vosk_recognizer_new(VoskModel *model, float sample_rate);
void vosk_recognizer_set_words(VoskRecognizer *recognizer, int words);

/* Samples are floats in the int16 range (not -1...1). Returns 1 at an endpoint (fetch the
 * utterance with vosk_recognizer_result before feeding more), 0 to go on, -1 on error. */
int vosk_recognizer_accept_waveform_f(VoskRecognizer *recognizer, const float *data, int length);

/* JSON owned by the recognizer, valid until its next call. */
const char *vosk_recognizer_result(VoskRecognizer *recognizer);
const char *vosk_recognizer_final_result(VoskRecognizer *recognizer);
void vosk_recognizer_free(VoskRecognizer *recognizer);

#endif
