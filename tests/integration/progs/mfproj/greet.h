/* greet.h - the shared-library part of mfproj (libgreet.so). */
#ifndef MFPROJ_GREET_H
#define MFPROJ_GREET_H

void greet(const char *who, long value);

#endif
