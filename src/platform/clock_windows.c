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
