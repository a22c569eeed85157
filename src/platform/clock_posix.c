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

/* (the same on every side) */

deadline deadline_in(double seconds)
{
    deadline d;
    d.start = clock_seconds();
    d.seconds = seconds;
    return d;
}

double deadline_seconds_left(const deadline *d)
{
    double left = d->seconds - (clock_seconds() - d->start);
    return left > 0 ? left : 0;
}

long deadline_milliseconds_left(const deadline *d)
{
    double left = deadline_seconds_left(d);
    if (left > 86400)
        left = 86400; /* waits are at most a day */
    return left <= 0 ? 0 : (long)(left * 1000) + 1;
}
