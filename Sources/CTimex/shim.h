// adjtimex and its flags (sys/timex.h), which the Glibc module does not import: whether the kernel
// calls the system clock synchronized (SystemIO's SystemClockSample).
#include <sys/timex.h>
