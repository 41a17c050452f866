/* util.h - arithmetic for mfproj, built into libutil.a. */
#ifndef MFPROJ_UTIL_H
#define MFPROJ_UTIL_H

long util_sum(int n);
long util_sum_of_squares(int n);

#endif
