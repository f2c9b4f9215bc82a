#ifndef UNIT_H
#define UNIT_H

void setUp(void);

/* stubs for the runners that ask for them (unit.c does) */
#ifdef UNIT_INCLUDE_STUBS
void setUp(void) { }
#endif

/* behind a macro no file defines: the build's (-DHAVE_COLOR), it counts */
#ifdef HAVE_COLOR
int unit_color(void) { return 1; }
#endif

#endif
