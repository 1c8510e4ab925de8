// The kernel interfaces the Glibc module does not import: adjtimex and its flags (sys/timex.h), for
// whether the kernel calls the system clock synchronized (SystemIO's SystemClockSample); timerfd
// (sys/timerfd.h), for SystemIO's DeadlineTimer; and epoll (sys/epoll.h), for its ReadinessPoller.
#include <sys/timex.h>
#include <sys/timerfd.h>
#include <sys/epoll.h>
