/* Function-like macros: a call of PUT runs what it expands to (FLUSH, then
 * emit_flush; emit_grow), from the line of the call. */
#include <string.h>

struct emitter {
    int used;
    int (*write)(struct emitter *e, int n);
};

static int emit_flush(struct emitter *e) {
    e->used = 0;
    return 1;
}

static int emit_grow(struct emitter *e, int n) {
    e->used += n;
    return 1;
}

#define FLUSH(e) ((e)->used < 64 || emit_flush(e))
#define PUT(e, c) (FLUSH(e) && emit_grow((e), 1) && (c))
#define APPLY(fn, e) fn(e)
#define WRITE_OUT(e, n) ((e)->write((e), (n)))

int emit_char(struct emitter *e, char c) {
    if (!PUT(e, c))
        return 0;
    return APPLY(strlen, "x") > 0 && WRITE_OUT(e, 1);
}

/* alternatives: one build expands REPORT to emit_log, another to emit_flush */
#ifndef EMIT_QUIET
#define REPORT(e) emit_log(e)
#else
#define REPORT(e) emit_flush(e)
#endif

static void emit_log(struct emitter *e) {
    e->used++;
}

void emit_done(struct emitter *e) {
    REPORT(e);
}
