#ifndef NET_TRANSPORT_H
#define NET_TRANSPORT_H

int transport_send(const char *data);
int transport_write(const char *data);
void on_done(const char *data);

#endif
