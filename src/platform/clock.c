/*
 * clock.c - what clock.h is the same on every side: deadlines, arithmetic
 * on clock_seconds() (clock_posix.c and clock_windows.c read the clock).
 */
#include "platform/clock.h"

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
