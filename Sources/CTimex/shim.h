// The clock headers the Glibc module does not import: adjtimex and its flags (sys/timex.h), for
// whether the kernel calls the system clock synchronized (SystemIO's SystemClockSample), and timerfd
// (sys/timerfd.h), for SystemIO's DeadlineTimer.
#include <sys/timex.h>
#include <sys/timerfd.h>
