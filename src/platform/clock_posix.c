/*
 * clock_posix.c - clock.h on POSIX: CLOCK_MONOTONIC and nanosleep.
 */
#include "platform/clock.h"

#include <errno.h>
#include <time.h>

double clock_seconds(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + 1e-9 * (double)now.tv_nsec;
}

void clock_sleep(double seconds)
{
    struct timespec pause, left;
    if (!(seconds > 0))
        return;
    if (seconds > 86400)
        seconds = 86400;
    pause.tv_sec = (time_t)seconds;
    pause.tv_nsec = (long)((seconds - (double)pause.tv_sec) * 1e9);
    while (nanosleep(&pause, &left) != 0 && errno == EINTR)
        pause = left;
}
