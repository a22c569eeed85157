/*
 * clock_windows.c - clock.h on Windows: QueryPerformanceCounter and Sleep.
 */
#include "platform/clock.h"

#include <windows.h>

double clock_seconds(void)
{
    static LARGE_INTEGER frequency;
    LARGE_INTEGER now;
    if (frequency.QuadPart == 0)
        QueryPerformanceFrequency(&frequency); /* never fails from Windows XP on */
    QueryPerformanceCounter(&now);
    return (double)now.QuadPart / (double)frequency.QuadPart;
}

void clock_sleep(double seconds)
{
    if (!(seconds > 0))
        return;
    if (seconds > 86400)
        seconds = 86400;
    Sleep((DWORD)(seconds * 1000) + 1); /* Sleep(0) only yields: round up */
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
