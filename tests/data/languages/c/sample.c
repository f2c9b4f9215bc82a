/* Message transport: a client that posts to a server, and a logger. */
#include <stdio.h>
#include <stdlib.h>
#include "transport.h"
#include "net/http.h"

#define MAX_LEN 256

/** A client for the message server. */
struct client {
    char base[MAX_LEN];
    int (*send)(struct client *self, const char *msg);
};

typedef struct logger {
    FILE *out;
} logger_t;

/* A decoded value. */
union value {
    int i;
    double d;
};

enum level { LEVEL_INFO, LEVEL_WARN };

typedef enum { MODE_SYNC, MODE_ASYNC } mode_t;

typedef int (*sender_fn)(void *target, const char *msg);

static int client_send(struct client *self, const char *msg);

/* Builds a client for the base URL. */
struct client *client_new(const char *base)
{
    struct client *c = malloc(sizeof *c);
    snprintf(c->base, sizeof c->base, "%s", base);
    c->send = client_send;
    return c;
}

// Posts one message.
static int client_send(struct client *self, const char *msg)
{
    return http_post(self->base, msg) == 0 ? 0 : -1;
}

int logger_send(logger_t *log, const char *msg)
{
    fprintf(log->out, "%s\n", msg);
    return 0;
}

static const char *level_name(enum level lvl)
{
    switch (lvl) {
    case LEVEL_WARN:
        return "warn";
    default:
        return "info";
    }
}

int broadcast(sender_fn fn, void *target, const char *msg)
{
    int err = fn(target, msg);
    if (err)
        fputs(level_name(LEVEL_WARN), stderr);
    return err;
}

int main(void)
{
    struct client *c = client_new("http://localhost");
    logger_t log = { stdout };
    c->send(c, "hello");
    logger_send(&log, "hello");
    broadcast((sender_fn)logger_send, &log, "bye");
    free(c);
    return 0;
}
