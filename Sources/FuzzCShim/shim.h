// libFuzzer's entry for programs with their own main (compiler-rt's FuzzerInterface.h). It is defined
// only when linked with -sanitize=fuzzer; the fuzz harnesses call it only under `#if FUZZING`.
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));
