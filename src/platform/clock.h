/*
 * clock.h - time as the command measures it: a monotonic clock (never set
 * back, not the time of day), deadlines on it, and pauses.  Every wait on
 * another process (src/platform/process.h) is bounded by a deadline.
 */
#ifndef DMLREF_PLATFORM_CLOCK_H
#define DMLREF_PLATFORM_CLOCK_H

/* Seconds on a monotonic clock, from an origin of its own: only
   differences mean something. */
double clock_seconds(void);

/* Sleeps about `seconds` (at most a day; 0 or less: returns at once). */
void clock_sleep(double seconds);

/* A moment `seconds` from when it was made. */
typedef struct deadline {
    double start, seconds;
} deadline;

deadline deadline_in(double seconds);

/* Seconds until the deadline, 0 once it has passed. */
double deadline_seconds_left(const deadline *d);

/* Milliseconds until the deadline, rounded up (a wait of that long does not
   end before it); 0 once it has passed. */
long deadline_milliseconds_left(const deadline *d);

#endif /* DMLREF_PLATFORM_CLOCK_H */
